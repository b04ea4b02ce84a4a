"""The report's contract line: what the migration owes, and the rest counted by cause, never a path."""

from __future__ import annotations

from mwbmigrate.cli import _ContractState


def test_the_line_says_what_is_owed_and_counts_the_rest() -> None:
    state = _ContractState(release="0.5.23", files=5)
    assert state.describe(1, {"call": 2, "import": 1}) == (
        "checked against SGLang 0.5.23 (5 files outside SGLang's own modules): 1 break this migration owes, "
        "each marked MWB185 unless a rule marked its statement; 3 more statements that this migration does "
        "not change use APIs 0.5.23 changed (2 calls, 1 import), not marked: `mwbmigrate verify --against "
        "0.5.23` lists them"
    )
    assert state.describe(0, {}) == (
        "checked against SGLang 0.5.23 (5 files outside SGLang's own modules): no break this migration owes"
    )


def test_a_step_that_did_not_run_says_why() -> None:
    state = _ContractState(note="no file outside SGLang's own modules to check against the target's contract")
    assert state.describe(0, {}) == state.note
