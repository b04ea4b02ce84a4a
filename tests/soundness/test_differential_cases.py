"""Every hand-written case ends as its header says, and no fixture whose input runs changes silently.

Hand-written cases (`cases/<topic>/NN_name.py`) end `same`, or `reported` with the codes their
header names. With `--live-batch`, which reads the live batch at every site, each ends `same` or
`reported` too: a site the allowlist does not prove carries its marker. Codemod fixtures are judged
too wherever their input runs against the old stand-in (it imports only what the stand-in has):
importing the rewrite against the new stand-in must do the same, or be reported.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from mwbmigrate.engine.transform import TransformOptions
from tests.soundness import standins
from tests.soundness.harness import CASE_PATH, expectation, judge, observe

CASES = sorted((Path(__file__).parent / "cases").rglob("*.py"))
FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"


def _fixture_path(case: Path) -> str:
    where = case / "path"
    return where.read_text().strip() if where.exists() else CASE_PATH


def _runs_on_the_old_api(case: Path) -> bool:
    ending = observe((case / "before.py").read_text(), standins.OLD)[-1]
    return ending[0] == "returned"


RUNNABLE_FIXTURES = [c.parent for c in sorted(FIXTURES.glob("*/*/before.py")) if _runs_on_the_old_api(c.parent)]


def test_there_are_enough_cases() -> None:
    assert len(CASES) >= 80
    assert len(RUNNABLE_FIXTURES) >= 60


@pytest.mark.parametrize("case", CASES, ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_case(case: Path) -> None:
    text = case.read_text()
    wanted = expectation(text)
    verdict = judge(text)
    assert verdict.outcome == wanted.outcome, verdict.explain(text)
    assert set(wanted.codes) <= set(verdict.migration.codes), verdict.explain(text)
    assert not (wanted.unmarked and verdict.migration.codes), verdict.explain(text)


@pytest.mark.parametrize("case", CASES, ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_case_with_the_live_batch(case: Path) -> None:
    text = case.read_text()
    verdict = judge(text, TransformOptions(live_batch=True))
    assert verdict.outcome in ("same", "reported"), verdict.explain(text)


@pytest.mark.parametrize("case", RUNNABLE_FIXTURES, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_fixture_input(case: Path) -> None:
    text = (case / "before.py").read_text()
    verdict = judge(text, path=_fixture_path(case))
    assert verdict.outcome in ("same", "reported"), verdict.explain(text)
