"""`--runtime vendor` on the real 0.5.12.post1 core: the runtime lands in `sglang/_mwbmigrate_runtime/`,
nothing imports `mwbmigrate.runtime`, and the one-shot and isolation contracts still hold.

To stay cheap, this starts from the session's migrated tree (import mode) and puts back the
original of every file that imports the runtime: the vendor run then rewrites only those, and
must produce the same text as the import run, with the vendored module in the import.
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

import mwbmigrate.runtime
from corpus_trees import assert_core_holds_contracts, python_files
from mwbmigrate.cli import app

pytestmark = pytest.mark.corpus

RUNTIME_IMPORT = b"from mwbmigrate.runtime import"
VENDORED_IMPORT = b"from sglang._mwbmigrate_runtime import"
ANY_RUNTIME_IMPORT = re.compile(rb"(?m)^\s*(?:from|import)\s+mwbmigrate\.runtime\b")


@pytest.fixture(scope="module")
def vendored(trees, tmp_path_factory):
    assert trees["result"].exit_code == 0, trees["result"].output
    needs_runtime = sorted(name for name, text in trees["new"].items() if RUNTIME_IMPORT in text)
    root = tmp_path_factory.mktemp("vendored") / "tree"
    work = root / "sglang"
    shutil.copytree(trees["work"], work)
    # The files that reach for the runtime, as they were, and the batch's module the first run read
    # its facts from (the tree's own ScheduleBatch and old method: analysis/tree_facts.py).
    for name in [*needs_runtime, "srt/managers/schedule_batch.py"]:
        (work / name).write_bytes(trees["old"][name])
    result = CliRunner().invoke(
        app, ["rewrite", str(work), "--runtime", "vendor", "--no-progress", "--jobs", "2", "--format", "json"]
    )
    return {"root": root, "work": work, "needs_runtime": needs_runtime, "result": result}


def test_the_vendor_run_imports_the_private_copy_instead(vendored, trees):
    assert vendored["result"].exit_code == 0, vendored["result"].output
    document = json.loads(vendored["result"].stdout)
    # The core files that reach for the runtime: the forward batch and the scheduler (0.5.12.post1's
    # batch has no mirror to repair, and clearing an emptied batch is opt-in).
    assert {"managers/scheduler.py", "model_executor/forward_batch_info.py"} <= {
        name.removeprefix("srt/") for name in vendored["needs_runtime"]
    }
    after = python_files(vendored["work"])
    for name in vendored["needs_runtime"]:
        assert after[name] == trees["new"][name].replace(RUNTIME_IMPORT, VENDORED_IMPORT), name
    assert not [name for name, text in after.items() if ANY_RUNTIME_IMPORT.search(text)]
    source = Path(mwbmigrate.runtime.__file__).parent
    copied = {p.name: p.read_bytes() for p in source.iterdir() if p.suffix == ".py" or p.name == "py.typed"}
    copy = vendored["work"] / "_mwbmigrate_runtime"
    assert {p.name: p.read_bytes() for p in copy.iterdir()} == copied
    assert [(v["path"], v["status"]) for v in document["runtime"]["vendored"]] == [
        (f"_mwbmigrate_runtime/{name}", "created") for name in sorted(copied)
    ]


def test_the_vendored_core_holds_the_one_shot_and_isolation_contracts(vendored):
    assert vendored["result"].exit_code == 0, vendored["result"].output
    assert_core_holds_contracts(vendored["root"])
