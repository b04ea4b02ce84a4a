"""A `--check` whose every file the result cache holds imports no codemod and no LibCST: the command
line, discovery and the cache read the registry as plain data (mwbmigrate/rule_table.py). A file that
changed is transformed again, and that run imports them."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

WORKER = """\
from sglang.srt.managers.schedule_batch import ModelWorkerBatch


def forward(worker, model_worker_batch: ModelWorkerBatch):
    return worker.run(model_worker_batch)
"""
# Runs the command line in this process, then says what it imported.
_PROBE = """\
import json, sys
from mwbmigrate.cli import main
sys.argv = ["mwbmigrate", *sys.argv[1:]]
try:
    main()
except SystemExit as stop:
    code = stop.code
print(json.dumps({"exit": code, "libcst": "libcst" in sys.modules,
                  "codemods": sorted(m for m in sys.modules if m.startswith("mwbmigrate.codemods"))}))
"""


def _check(tree: Path, cache: Path) -> dict[str, object]:
    environment = {**os.environ, "MWBMIGRATE_CACHE_DIR": str(cache)}
    done = subprocess.run(
        [sys.executable, "-c", _PROBE, "rewrite", str(tree), "--check", "--no-progress", "--jobs", "1"],
        capture_output=True,
        text=True,
        env=environment,
    )
    return json.loads(done.stdout.strip().splitlines()[-1])  # type: ignore[no-any-return]


def test_a_check_served_by_the_cache_imports_no_libcst(tmp_path: Path) -> None:
    tree, cache = tmp_path / "plugin", tmp_path / "cache"
    tree.mkdir()
    (tree / "worker.py").write_text(WORKER)
    (tree / "other.py").write_text("def unrelated():\n    return 1\n")
    first = _check(tree, cache)  # fills the cache
    assert first["exit"] == 1 and first["libcst"] is True
    again = _check(tree, cache)
    assert again == {"exit": 1, "libcst": False, "codemods": []}
    (tree / "worker.py").write_text(WORKER + "\n\nVERSION = 2\n")  # a miss: transformed again
    changed = _check(tree, cache)
    assert changed["exit"] == 1 and changed["libcst"] is True
