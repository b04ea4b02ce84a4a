"""`rewrite --target-version WHEEL|DIR`: a release read at run time, by the functions that wrote the
shipped table (`verify/release_contract.py`).

A known release passed as its unpacked wheel, with the shipped rows of that release hidden (as if
this tool had never seen it), gives the same rows, the same answers and the same output as the
shipped target, on the 0.5.23 differential cases, `examples/fork` and every fixture whose output
depends on the target (those with an `after-<release>.py`; the others run no target-dependent
code). With `MWBMIGRATE_VERIFY_ALL_RELEASES=1` every fixture is compared.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from typer.testing import CliRunner

from fixture_cases import FIXTURES, migrate
from mwbmigrate.analysis import release_table, target_versions
from mwbmigrate.cli import _derived_target, app
from mwbmigrate.engine.transform import TransformOptions
from sglang_corpus import REPO_ROOT, sglang_tree

pytestmark = pytest.mark.corpus

RELEASE = "0.5.23"
ALL = bool(os.environ.get("MWBMIGRATE_VERIFY_ALL_RELEASES"))
PROGRAMS = sorted(
    [
        *(REPO_ROOT / "tests" / "soundness" / "cases_0523").glob("*.py"),
        *(REPO_ROOT / "examples" / "fork").rglob("*.py"),
        *(p for p in FIXTURES.glob("*/*/before.py") if ALL or any(p.parent.glob("after-0.5.*.py"))),
    ]
)


# The shipped rows of RELEASE, kept before any test hides them.
SHIPPED_ROWS = (
    release_table.WORKER_CALL_PARAMETERS[RELEASE]["tp_worker"],
    release_table.WORKER_CALL_PARAMETERS[RELEASE]["spec_worker"],
    release_table.INIT_NEW_PARAMETERS[RELEASE],
)


@pytest.fixture
def hidden(monkeypatch):
    """The shipped table without RELEASE: no row, no removal or rename dated by it, no place in the order."""
    monkeypatch.setattr(target_versions, "_DERIVED", {})
    monkeypatch.setattr(target_versions, "_ORDER", {v: i for v, i in target_versions._ORDER.items() if v != RELEASE})
    for name in ("WORKER_CALL_PARAMETERS", "INIT_NEW_PARAMETERS"):
        table = getattr(release_table, name)
        monkeypatch.setattr(release_table, name, {v: rows for v, rows in table.items() if v != RELEASE})
    for name in ("REMOVED_ATTRIBUTES", "RENAMED_KEYWORDS"):
        table = getattr(release_table, name)
        monkeypatch.setattr(
            release_table,
            name,
            {k: row for k, row in table.items() if row[0 if name == "REMOVED_ATTRIBUTES" else 1] != RELEASE},
        )
    with pytest.raises(ValueError):
        target_versions.resolve_target(RELEASE)
    derived = _derived_target(str(sglang_tree(RELEASE)))
    assert derived.label == RELEASE
    return derived


@pytest.fixture(scope="module")
def shipped_outputs():
    return {
        program: migrate(program.read_text(), _path(program), TransformOptions(target_version=RELEASE))
        for program in PROGRAMS
    }


def _path(program: Path) -> str:
    where = program.parent / "path"
    return where.read_text().strip() if program.name == "before.py" and where.exists() else "plugin/module.py"


def test_the_derived_rows_are_the_shipped_ones(hidden):
    assert RELEASE not in release_table.WORKER_CALL_PARAMETERS  # hidden: what follows is read from the wheel
    assert (hidden.tp_worker, hidden.spec_worker, hidden.init_new) == SHIPPED_ROWS


def test_a_hidden_release_read_from_its_wheel_answers_as_shipped(hidden):
    expected_removed = {
        "is_spec_v2": "0.5.14",
        "can_run_dp_cuda_graph": "0.5.19",
        "fpm_start_time": RELEASE,  # dated by the release itself: the hidden table cannot date it
    }
    removed = target_versions.removed_attributes(RELEASE)
    assert {name: removed[name] for name in expected_removed} == expected_removed
    assert dict(target_versions.renamed_keywords(RELEASE)) == {
        ("filter_batch", "chunked_req_to_exclude"): "reqs_to_exclude"
    }
    assert target_versions.at_least(RELEASE, "0.5.22") and not target_versions.at_least("0.5.22", RELEASE)
    assert target_versions.overrides_are_arguments(RELEASE)


def test_every_program_migrates_as_to_the_shipped_target(shipped_outputs, hidden):
    options = TransformOptions(target_version=RELEASE, derived_release=hidden)
    differ = [
        p.relative_to(REPO_ROOT).as_posix()
        for p in PROGRAMS
        if migrate(p.read_text(), _path(p), options) != shipped_outputs[p]
    ]
    assert len(PROGRAMS) > 50
    assert differ == []


def test_the_cli_takes_a_wheel_folder(tmp_path):
    """`--target-version DIR`: the release read from the folder, the contract step run against it."""
    program = REPO_ROOT / "tests" / "soundness" / "cases_0523" / "34_filter_batch_v1_keyword.py"
    (tmp_path / "plugin").mkdir()
    target = tmp_path / "plugin" / "module.py"
    target.write_text(program.read_text())
    result = CliRunner().invoke(
        app, ["rewrite", str(tmp_path), "--target-version", str(sglang_tree(RELEASE)), "--no-cache", "--allow-dirty"]
    )
    assert result.exit_code == 0, result.output
    migrated = target.read_text()
    assert "# mwbmigrate: MWB185 SGLang 0.5.23's ScheduleBatch.filter_batch(" in migrated
    assert "v1_spec_info_filtered" in migrated
    assert f"contract checked against SGLang {RELEASE}" in " ".join(result.output.split())
