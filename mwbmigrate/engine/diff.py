"""Unified diffs that `git apply` accepts byte for byte."""

from __future__ import annotations

import difflib

from mwbmigrate.engine.source import source_lines

NO_NEWLINE_MARKER = "\\ No newline at end of file\n"


def unified_diff(display_path: str, before: str, after: str, context: int = 3) -> str:
    """A git-style diff of one file, `a/` and `b/` prefixes, "No newline at end of file" marked."""
    if before == after:
        return ""
    header = f"diff --git a/{display_path} b/{display_path}\n"
    return header + _hunks(before, after, f"a/{display_path}", f"b/{display_path}", context)


def new_file_diff(display_path: str, text: str) -> str:
    """A git-style diff that creates `display_path` (`git apply` makes the file, mode 100644).

    An empty file has no hunk: git's own header alone creates it.
    """
    header = f"diff --git a/{display_path} b/{display_path}\nnew file mode 100644\n"
    return header + _hunks("", text, "/dev/null", f"b/{display_path}", 3)


def _hunks(before: str, after: str, fromfile: str, tofile: str, context: int) -> str:
    out = []
    for line in difflib.unified_diff(
        source_lines(before), source_lines(after), fromfile=fromfile, tofile=tofile, n=context
    ):
        if line.startswith(("---", "+++")):
            out.append(line.rstrip("\n") + "\n")
            continue
        if line.startswith("@@"):
            out.append(line)
            continue
        if line.endswith("\n"):
            out.append(line)
        else:
            out.append(line + "\n" + NO_NEWLINE_MARKER)
    return "".join(out)
