from __future__ import annotations

import fcntl
import json
import os
import shutil
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest
from typer.testing import CliRunner

from corpus_trees import python_files
from mwbmigrate.cli import app
from sglang_corpus import NEW_VERSION, OLD_VERSION, CorpusUnavailable, sglang_tree


@dataclass(frozen=True)
class RunResult:
    """What the corpus tests read of the one `mwbmigrate rewrite` run over the tree."""

    exit_code: int
    output: str

    @property
    def stdout(self) -> str:
        return self.output


def _migrated_once(
    tmp_path_factory: pytest.TempPathFactory, name: str, old_root: Path, flags: Callable[[Path], list[str]]
) -> tuple[RunResult, Path]:
    """0.5.12.post1 copied into the run's shared temporary folder and rewritten there with
    `rewrite WORK *flags(WORK)`, once per test run: under `pytest -n` the first worker migrates it
    under a lock, the others wait and read the same tree."""
    base = tmp_path_factory.getbasetemp()
    shared = base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base
    root = shared / name
    work = root / "tree" / "sglang"
    with open(shared / f"{name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        recorded = root / "run.json"
        if not recorded.exists():
            shutil.rmtree(root, ignore_errors=True)
            shutil.copytree(old_root / "sglang", work)
            arguments = ["rewrite", str(work), *flags(work), "--no-progress", "--jobs", "2", "--format", "json"]
            result = CliRunner().invoke(app, arguments)
            recorded.write_text(json.dumps({"exit_code": result.exit_code, "output": result.output}))
        return RunResult(**json.loads(recorded.read_text())), work


@pytest.fixture(scope="session")
def trees(tmp_path_factory):
    """0.5.12.post1 copied and rewritten in place once per test run; both versions' files for comparison."""
    try:
        old_root, new_root = sglang_tree(OLD_VERSION), sglang_tree(NEW_VERSION)
    except CorpusUnavailable as error:
        pytest.fail(f"corpus download failed: {error}")
    run, work = _migrated_once(tmp_path_factory, "corpus-trees", old_root, lambda work: [])
    return {
        "old": python_files(old_root / "sglang"),
        "new": python_files(work),
        "upstream": python_files(new_root / "sglang"),
        "result": run,
        "work": work,
        "root": work.parent,
    }


@pytest.fixture(scope="session")
def live_trees(trees, tmp_path_factory):
    """The same tree migrated with `--live-batch` (upstream's shape, reviewed where unproven), for the
    tests that compare the idiomatic output with upstream's hand migration. Only the files the default
    run changed are included: the others have nothing to migrate, and reading them costs the run's time."""
    report = json.loads(trees["result"].output)
    changed = sorted(str(entry["path"]) for entry in report["files"] if entry["status"] == "changed")
    includes = [argument for path in changed for argument in ("--include", path)]
    run, work = _migrated_once(
        tmp_path_factory, "corpus-live-tree", sglang_tree(OLD_VERSION), lambda work: [*includes, "--live-batch"]
    )
    return {**trees, "new": python_files(work), "result": run, "work": work, "root": work.parent}
