"""`rewrite --target-version 0.5.23`, then `verify --against 0.5.23`: every mismatch verify finds in
a migrated fork program that the migration owes sits on a statement the rewrite marked, and the
rewrite's report counts every other one.

Over every 0.5.23 differential case (`tests/soundness/cases_0523`) and `examples/fork`, each
migrated as `rewrite` does it, its contract step included, then checked as `verify --against
0.5.23 --allow-review-markers` checks it: a mismatch left unmarked is on no statement the rewrite
changed and not on the migrated API (engine/contract_scope.py), and the report's count of those is
exact. Without the contract step the same check finds unmarked mismatches the migration owes, so
the step is what closes them.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from mwbmigrate.engine.apply import write_result
from mwbmigrate.engine.contract_scope import never_a_break
from mwbmigrate.engine.runner import run_rewrite
from mwbmigrate.engine.transform import TransformOptions
from mwbmigrate.result import RunSummary
from mwbmigrate.verify.against import (
    Mismatch,
    _on_marked_statement,
    breaks_by_file,
    check_against,
    check_rewritten,
)
from mwbmigrate.verify.release import locate_release
from sglang_corpus import REPO_ROOT, sglang_tree

pytestmark = pytest.mark.corpus

RELEASE = "0.5.23"
CASES = sorted((REPO_ROOT / "tests" / "soundness" / "cases_0523").glob("*.py"))


def _migrated(tmp_path: Path, source: Path, contract: bool) -> tuple[Path, RunSummary]:
    root = tmp_path / ("with" if contract else "without")
    if source.is_dir():
        shutil.copytree(source, root / source.name)
    else:
        (root / "plugin").mkdir(parents=True)
        shutil.copy(source, root / "plugin" / "module.py")
    release = locate_release(str(sglang_tree(RELEASE)))
    summary = run_rewrite(
        [root],
        TransformOptions(target_version=RELEASE),
        jobs=1,
        contract=(lambda texts, checked: breaks_by_file(check_rewritten(root, release, texts, checked)))
        if contract
        else None,
    )
    for result in summary.changed:
        assert write_result(result) is None
    return root, summary


def _unmarked(root: Path) -> list[Mismatch]:
    report = check_against(root, locate_release(str(sglang_tree(RELEASE))))
    return [m for m in report.mismatches if not _on_marked_statement(m)]


# The cases' stand-in helpers (`sglang.standin`) are no module of any release: their imports are
# drift the migration does not owe (counted, not marked), and the programs run on the stand-in.


@pytest.mark.parametrize("source", [*CASES, REPO_ROOT / "examples" / "fork"], ids=lambda p: p.stem)
def test_every_mismatch_owed_is_on_a_marked_statement(tmp_path, source):
    root, summary = _migrated(tmp_path, source, contract=True)
    unmarked = _unmarked(root)
    owed = [m.render() for m in unmarked if m.migrated_api and not never_a_break(m)]
    assert owed == []
    counted = [m for m in unmarked if not never_a_break(m)]
    assert sum(summary.contract_elsewhere.values()) == len(counted), [m.render() for m in counted]


# The cases whose break only the release's contract knows (a dropped keyword, a renamed base, a
# `verify` override).
CONTRACT_ONLY = [c for c in CASES if c.name.startswith(("34_", "35_", "39_"))]


def test_without_the_contract_step_some_are_not(tmp_path):
    assert len(CONTRACT_ONLY) == 3
    unmarked = [
        m.render()
        for case in CONTRACT_ONLY
        for m in _unmarked(_migrated(tmp_path / case.stem, case, contract=False)[0])
        if m.migrated_api
    ]
    assert any("filter_batch" in line or "does not define" in line or "does not take" in line for line in unmarked), (
        unmarked
    )
