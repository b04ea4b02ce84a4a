"""Shared by the corpus tests: the real trees, and 0.5.12.post1 migrated once per session."""

from __future__ import annotations

import ast
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


def statement_marker_text(source: str, line: int) -> str:
    """The review markers of the statement holding `line`: on its lines, and on the comment lines
    right above it (where a marker too long for its line goes), wrapped lines joined."""
    lines = source.splitlines()
    first, last = line, line
    best = None
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.stmt) or not node.lineno <= line <= (node.end_lineno or node.lineno):
            continue
        body = getattr(node, "body", None)
        header_end = body[0].lineno - 1 if isinstance(body, list) and body and body[0].lineno > line else None
        end = header_end if header_end is not None else (node.end_lineno or node.lineno)
        if line <= end and (best is None or end - node.lineno < best):
            best, first, last = end - node.lineno, node.lineno, end
    found = [text[text.index("# mwbmigrate:") :] for text in lines[first - 1 : last] if "# mwbmigrate:" in text]
    above: list[str] = []
    number = first - 1
    while number >= 1 and lines[number - 1].lstrip().startswith("#"):
        above.insert(0, lines[number - 1].strip())
        if above[0].startswith("# mwbmigrate:"):
            found.insert(0, " ".join(part.removeprefix("#   ") if i else part for i, part in enumerate(above)))
            break
        number -= 1
    return "  ".join(found)


def marked_statement(source: str, line: int) -> bool:
    """Whether the statement holding `line` carries a review marker, or a version gate around it
    does (a gate's one marker covers the branches it chooses between)."""
    if "# mwbmigrate: MWB" in statement_marker_text(source, line):
        return True
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.If) and node.lineno < line <= (node.end_lineno or node.lineno):
            marker = statement_marker_text(source, node.lineno)
            if any(f"{code} " in marker for code in ("MWB120", "MWB121", "MWB122", "MWB154")):
                return True
    return False


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
