"""The request-pool mirror codemod on the real 0.5.13 tree: its own ScheduleBatch then passes the
three request-pool scenarios (decode restores a missing mirror, filter-to-empty clears everything,
merge restores a missing mirror) and the hisparse builder invariant."""

from __future__ import annotations

import io
import json
import shutil

import pytest
from rich.console import Console
from typer.testing import CliRunner

from mwbmigrate.cli import app
from mwbmigrate.verify.runner import run_verify
from sglang_corpus import NEW_VERSION, CorpusUnavailable, sglang_tree

pytestmark = pytest.mark.corpus


def test_fixed_0_5_13_tree_passes_the_request_pool_scenarios(tmp_path):
    try:
        source = sglang_tree(NEW_VERSION)
    except CorpusUnavailable as error:
        pytest.fail(f"corpus download failed: {error}")
    tree = tmp_path / "tree"
    shutil.copytree(source / "sglang", tree / "sglang")
    # The "fixed" profile clears an emptied batch too: the opt-in fuller repair of PR 28514.
    result = CliRunner().invoke(
        app, ["rewrite", str(tree), "--select", "req-pool-mirror", "--clear-emptied-batches", "--no-progress"]
    )
    assert result.exit_code == 0, result.output
    again = CliRunner().invoke(
        app,
        ["rewrite", str(tree), "--select", "req-pool-mirror", "--clear-emptied-batches", "--check", "--no-progress"],
    )
    assert again.exit_code == 0, again.output

    buffer = io.StringIO()
    code = run_verify(tree, fmt="json", keyword="req_pool or hisparse or import", console=Console(file=buffer))
    document = json.loads(buffer.getvalue())
    implementation = {i["name"]: i for i in document["implementations"]}["tree"]
    assert implementation["profile"]["req_pool"] == "fixed"
    assert implementation["profile"]["hisparse_builder"] == "fixed"
    tree_tests = [t for t in document["suite"]["tests"] if t["impl"] == "tree" and t["group"] == "req_pool"]
    assert len(tree_tests) >= 3
    assert {t["outcome"] for t in tree_tests} == {"passed"}, tree_tests
    assert code == 0, document.get("problems")
