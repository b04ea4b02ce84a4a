"""An override counts as set again only by a later set in its own block: one on the other branch
of an `if` runs instead of it, and the forward after both consumes whichever ran."""

from __future__ import annotations

from pathlib import Path

from tests.soundness.harness import migrate

CASES = Path(__file__).resolve().parent.parent / "soundness" / "cases" / "one_call_away"


def test_a_set_on_the_other_branch_is_not_a_later_set() -> None:
    migration = migrate((CASES / "24_override_set_on_either_branch.py").read_text())
    assert migration.codes == ("MWB116",)


def test_a_later_set_in_the_same_block_is() -> None:
    migration = migrate((CASES / "12_consumer_set_again_between_forwards.py").read_text())
    assert migration.codes == ()
