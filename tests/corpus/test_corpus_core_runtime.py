"""The migrated 0.5.12.post1 core on CPU: its own ForwardBatch.init_new and scheduler isolation
hold the one-shot and isolation contracts of the verify suite."""

from __future__ import annotations

import io
import json

import pytest
from rich.console import Console

from mwbmigrate.verify.runner import run_verify

pytestmark = pytest.mark.corpus


def test_migrated_core_holds_the_one_shot_and_isolation_contracts(trees):
    assert trees["result"].exit_code == 0, trees["result"].output
    buffer = io.StringIO()
    code = run_verify(
        trees["root"], fmt="json", keyword="oneshot or isolation or ring or import",
        allow_review_markers=True, console=Console(file=buffer),
    )
    document = json.loads(buffer.getvalue())
    implementation = {i["name"]: i for i in document["implementations"]}["tree"]
    assert implementation["profile"]["oneshot"] == "contract", implementation
    assert implementation["profile"]["isolation"] == "runtime", implementation
    by_group: dict[str, set[str]] = {}
    for test in document["suite"]["tests"]:
        if test["impl"] == "tree":
            by_group.setdefault(test["group"], set()).add(test["outcome"])
    for group in ("import", "oneshot", "isolation"):
        assert by_group.get(group) == {"passed"}, (group, by_group.get(group), document.get("problems"))
    assert document["static"]["passed"], document["static"]
    assert code == 0, document.get("problems")
