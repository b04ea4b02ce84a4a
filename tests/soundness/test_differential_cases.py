"""Every hand-written case ends as its header says: `same`, or `reported` with the named codes."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.soundness.harness import expectation, judge

CASES = sorted((Path(__file__).parent / "cases").rglob("*.py"))


def test_there_are_enough_cases() -> None:
    assert len(CASES) >= 80


@pytest.mark.parametrize("case", CASES, ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_case(case: Path) -> None:
    text = case.read_text()
    wanted = expectation(text)
    verdict = judge(text)
    assert verdict.outcome == wanted.outcome, verdict.explain(text)
    assert set(wanted.codes) <= set(verdict.migration.codes), verdict.explain(text)
