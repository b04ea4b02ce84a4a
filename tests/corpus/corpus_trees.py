"""Shared by the corpus tests: the real trees, and 0.5.12.post1 migrated once per session."""

from __future__ import annotations

import io
import json
import tokenize
from pathlib import Path

from rich.console import Console

from mwbmigrate.verify.runner import run_verify

OLD_TOKENS = {"ModelWorkerBatch", "get_model_worker_batch", "model_worker_batch"}


def old_api_code_tokens(source: str) -> list[tuple[int, str]]:
    found = []
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        if token.type == tokenize.NAME and token.string in OLD_TOKENS:
            found.append((token.start[0], token.string))
    return found


def python_files(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*.py"))}


def assert_core_holds_contracts(root: Path) -> None:
    """`mwbmigrate verify` on a migrated core: the tree's own import, one-shot and isolation tests pass."""
    buffer = io.StringIO()
    code = run_verify(
        root,
        fmt="json",
        keyword="oneshot or isolation or ring or import",
        allow_review_markers=True,
        console=Console(file=buffer),
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
