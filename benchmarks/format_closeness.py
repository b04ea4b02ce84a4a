"""How close the migrated 0.5.12.post1 files come to upstream's hand-made 0.5.13, with and without
`--format-changed black`.

For every file the rewrite changes, it counts the lines the rewrite added (`+` lines of the diff
from the original) and how many of them stand, byte for byte, in upstream 0.5.13's file; and the
lines by which the whole file still differs from upstream's. Both are printed side by side, raw and
with only the changed statements formatted by black (SGLang formats with black), through
`format_result`, what `rewrite --format-changed black` applies to each file; `refused` counts the
files it would leave untouched (their original text is counted then).

    python benchmarks/format_closeness.py
"""

from __future__ import annotations

import difflib
import shutil
import sys
import tempfile
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from mwbmigrate.engine.formatting import format_result, resolve_formatter  # noqa: E402
from mwbmigrate.engine.runner import run_rewrite  # noqa: E402
from mwbmigrate.engine.transform import TransformOptions  # noqa: E402
from mwbmigrate.result import FileStatus  # noqa: E402
from sglang_corpus import NEW_VERSION, OLD_VERSION, sglang_tree  # noqa: E402


def added_lines(original: str, rewritten: str) -> list[str]:
    return [
        line[1:]
        for line in difflib.unified_diff(original.splitlines(), rewritten.splitlines(), lineterm="", n=0)
        if line.startswith("+") and not line.startswith("+++")
    ]


def differing_lines(ours: str, upstream: str) -> int:
    return sum(
        1
        for line in difflib.unified_diff(ours.splitlines(), upstream.splitlines(), lineterm="", n=0)
        if line[:1] in "+-" and not line.startswith(("+++", "---"))
    )


def main() -> int:
    new_root = sglang_tree(NEW_VERSION) / "sglang"
    # Outside this repository, whose .gitignore hides the download cache from discovery.
    scratch = Path(tempfile.mkdtemp(prefix="mwbmigrate-format-"))
    old_root = scratch / "sglang"
    shutil.copytree(sglang_tree(OLD_VERSION) / "sglang", old_root)
    formatter = resolve_formatter("black", scratch)
    assert formatter is not None
    rows: dict[str, list[int]] = {}  # added lines, of which upstream's, lines differing from upstream, refused
    for markers in (True, False):
        results = run_rewrite([old_root], TransformOptions(markers=markers), jobs=2).results
        suffix = "" if markers else ", no markers"
        for result in results:
            if result.rewritten is None or result.original is None:
                continue
            relative = Path(result.path).resolve().relative_to(old_root.resolve())
            upstream_file = new_root / relative
            upstream = upstream_file.read_text() if upstream_file.exists() else ""
            upstream_lines = Counter(upstream.splitlines())
            formatted = format_result(result, formatter)  # as `rewrite --format-changed black` does
            refused = formatted.status is FileStatus.FAILED
            if refused:
                print(f"refused: {formatted.display_path}: {formatted.error}", file=sys.stderr)
            for name, text in (
                (f"raw{suffix}", result.rewritten),
                (f"black{suffix}", formatted.rewritten if formatted.rewritten is not None else result.original),
            ):
                row = rows.setdefault(name, [0, 0, 0, 0])
                if refused and name.startswith("black"):
                    row[3] += 1
                added = added_lines(result.original, text)
                row[0] += len(added)
                row[1] += sum((Counter(added) & upstream_lines).values())
                row[2] += differing_lines(text, upstream) if upstream else 0
    shutil.rmtree(scratch)
    print(
        f"{'variant':18} {'added lines':>12} {'equal upstream':>15} {'share':>7} {'lines differing from upstream':>30} "
        f"{'refused':>8}"
    )
    for name, (added, equal, differing, refused) in rows.items():
        print(f"{name:18} {added:12d} {equal:15d} {equal / max(added, 1):7.1%} {differing:30d} {refused:8d}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
