"""How many of the review markers on a real SGLang tree sit on statements that upstream changed.

    python benchmarks/review_noise.py [--tree PATH] [--markers all] [--live-batch]

Migrates a copy of SGLang 0.5.12.post1 (downloaded into the ignored cache) with default options,
or of any tree given with `--tree` (a fork), and compares each review item's statement
with SGLang 0.5.13, which upstream migrated by hand: a statement is *kept* when upstream's file has it
exactly as the rewrite left it (indentation and markers aside), else *changed*. It prints, by code, the items
on kept and on changed statements, the number of marker comments written into the code, the share of
marked statements upstream changed, and the longest line that carries a marker.

With `--tree PATH`, each marked statement is listed too (`path:line codes: upstream changed|kept|
no twin`). A file's upstream twin is the file of the same path below the innermost `sglang` folder
in SGLang 0.5.13 (a fork's vendored `python/sglang/srt/...`); a file with no twin (the fork's own
plugin, its tests) is listed as such and left out of the share.
"""

from __future__ import annotations

import argparse
import ast
import json
import shutil
import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

from sglang_corpus import sglang_tree  # noqa: E402

OLD, NEW = "0.5.12.post1", "0.5.13"
MARKER = "# mwbmigrate:"


def _report(tree: Path, extra: list[str]) -> tuple[dict[str, object], dict[str, str]]:
    """The JSON report of a run on a copy of `tree`, and each changed file's rewritten text."""
    with tempfile.TemporaryDirectory() as scratch:
        copy = Path(scratch) / tree.resolve().name
        shutil.copytree(tree, copy, ignore=shutil.ignore_patterns(".git", "__pycache__"))
        command = [sys.executable, "-m", "mwbmigrate", "rewrite", str(copy), "--no-cache", "--format", "json", *extra]
        report = json.loads(subprocess.run(command, capture_output=True, text=True, cwd=ROOT).stdout)
        texts = {
            str(entry["path"]): (copy / str(entry["path"])).read_text(encoding="utf-8-sig")
            for entry in report["files"]  # type: ignore[union-attr]
            if (copy / str(entry["path"])).is_file()
        }
    return report, texts


def _statements(text: str) -> list[tuple[int, int]]:
    """(first, last) line of every statement; a compound statement's header only."""
    spans = []
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, ast.stmt):
            body = getattr(node, "body", None)
            last = body[0].lineno - 1 if isinstance(body, list) and body and body[0].lineno > node.lineno else None
            spans.append((node.lineno, last if last is not None else (node.end_lineno or node.lineno)))
    return spans


def _text(lines: list[str], span: tuple[int, int]) -> str:
    return "\n".join(line.split(MARKER, 1)[0].strip() for line in lines[span[0] - 1 : span[1]])


def _containing(spans: list[tuple[int, int]], line: int) -> tuple[int, int]:
    inside = [span for span in spans if span[0] <= line <= span[1]]
    return min(inside, key=lambda span: span[1] - span[0]) if inside else (line, line)


class _FileView:
    """One file as SGLang had it, as the rewrite left it and as upstream migrated it by hand."""

    def __init__(self, new_text: str, upstream_text: str) -> None:
        self.new_lines = new_text.splitlines()
        self.new_spans = _statements(new_text)
        upstream_lines = upstream_text.splitlines()
        self.kept = {_text(upstream_lines, span) for span in _statements(upstream_text)} if upstream_text else set()

    def upstream_changed(self, new_line: int) -> tuple[tuple[int, int], bool]:
        """The rewritten statement at `new_line`, and whether upstream's hand migration left that
        statement otherwise than the rewrite did: a marker on a statement upstream has exactly as
        the rewrite has it flags nothing a maintainer had to change."""
        statement = _containing(self.new_spans, new_line)
        return statement, _text(self.new_lines, statement) not in self.kept


def _twin(new_tree: Path, root_name: str, path: str, whole_package: bool) -> Path | None:
    """Upstream's migrated copy of the file at `path` (relative to the migrated tree, whose folder is
    called `root_name`: a tree given as its `sglang/` folder itself has it there), if any."""
    if whole_package:
        return new_tree / path
    parts = (root_name, *Path(path).parts)
    if "sglang" not in parts[:-1]:
        return None
    below = parts[len(parts) - 1 - parts[::-1].index("sglang") :]
    twin = new_tree.joinpath(*below)
    return twin if twin.is_file() else None


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--tree", type=Path, default=None, help="migrate this tree instead of SGLang 0.5.12.post1")
    parser.add_argument("--markers", default=None, help="passed on to `rewrite --markers`")
    parser.add_argument("--live-batch", action="store_true", help="passed on: `rewrite --live-batch`")
    arguments = parser.parse_args()
    whole_package = arguments.tree is None
    old_tree, new_tree = arguments.tree or sglang_tree(OLD), sglang_tree(NEW)
    extra = ["--markers", arguments.markers] if arguments.markers else []
    extra += ["--live-batch"] if arguments.live_batch else []
    report, rewritten = _report(old_tree, extra)
    by_code: dict[str, Counter[str]] = {}
    marked: dict[tuple[str, tuple[int, int]], bool] = {}  # (file, statement) -> upstream changed it
    listing: dict[tuple[str, tuple[int, int]], tuple[set[str], str]] = {}  # --tree: codes, verdict
    longest, items = 0, 0
    for entry in report["files"]:  # type: ignore[union-attr]
        path = str(entry["path"])
        if path not in rewritten:
            continue
        upstream = _twin(new_tree, old_tree.resolve().name, path, whole_package)
        view = _FileView(
            rewritten[path],
            upstream.read_text(encoding="utf-8-sig") if upstream is not None and upstream.is_file() else "",
        )
        new_lines = view.new_lines
        for item in entry.get("review_items", []):
            items += 1
            _statement, changed = view.upstream_changed(int(item["line"]))
            by_code.setdefault(str(item["code"]), Counter())["changed" if changed else "kept"] += 1
        for number, text in enumerate(new_lines, 1):
            if MARKER not in text:
                continue
            longest = max(longest, len(text))
            statement_line = number
            while statement_line < len(new_lines) and new_lines[statement_line - 1].lstrip().startswith("#"):
                statement_line += 1  # a marker written above its statement
            statement, changed = view.upstream_changed(statement_line)
            codes, _ = listing.setdefault((path, statement), (set(), ""))
            codes.update(part.split()[0] for part in text.split(MARKER)[1:] if part.split())
            if upstream is None:
                listing[(path, statement)] = (codes, "no twin")
                continue
            listing[(path, statement)] = (codes, "upstream changed" if changed else "upstream kept")
            marked[(path, statement)] = changed
    if not whole_package:
        for (path, statement), (codes, verdict) in sorted(listing.items()):
            print(f"{path}:{statement[0]} {' '.join(sorted(codes))}: {verdict}")
        print()
    print(f"{'code':8} {'kept':>5} {'changed':>8}")
    for code in sorted(by_code):
        print(f"{code:8} {by_code[code]['kept']:>5} {by_code[code]['changed']:>8}")
    changed = sum(marked.values())
    share = changed / len(marked) if marked else 0.0
    print(f"review items: {items}")
    twinless = len(listing) - len(marked)
    print(f"marked statements: {len(marked)}, on statements upstream changed: {changed} ({share:.0%})")
    if not whole_package:
        print(f"marked statements in files with no upstream twin: {twinless}")
    print(f"longest line carrying a marker: {longest}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
