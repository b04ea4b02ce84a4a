"""Unified diffs that `git apply` accepts byte for byte."""

from __future__ import annotations

import difflib

NO_NEWLINE_MARKER = "\\ No newline at end of file\n"


def _lines(text: str) -> list[str]:
    # keepends=True with only "\n" / "\r\n" / "\r" boundaries: str.splitlines would also split on
    # form feeds and other separators that Python source may contain inside a line.
    lines: list[str] = []
    start = 0
    length = len(text)
    index = 0
    while index < length:
        char = text[index]
        if char == "\n":
            lines.append(text[start : index + 1])
            start = index + 1
        elif char == "\r":
            end = index + 2 if text[index + 1 : index + 2] == "\n" else index + 1
            lines.append(text[start:end])
            start = end
            index = end - 1
        index += 1
    if start < length:
        lines.append(text[start:])
    return lines


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
    for line in difflib.unified_diff(_lines(before), _lines(after), fromfile=fromfile, tofile=tofile, n=context):
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
