"""Where a run's review items point, read from the final text with the tokenizer:

- **The statement's first line.** A rule's marker ends its statement's (header) line, so an item
  was numbered at the closing `)` of a multi-line statement; a report, an editor or a CI
  annotation wants the line the statement starts on. Items are renumbered after every other step
  (formatting included, which follows markers by the lines they end).
- **The markers standing in the code.** A run reports a marker only when one of its rules finds
  the site again, and on a tree already migrated the old API is gone, so `--check` said "review
  items 0" over a tree full of markers. The markers are the open work a maintainer still has: each
  run counts the ones it did not report itself as open items (`standing`). A marker is a comment,
  `# mwbmigrate: MWB101 reason; MWB106 reason`, ending its statement's line, or above the statement
  wrapped on `#   ` lines when the line was too long (engine/marker_layout.py).
"""

from __future__ import annotations

import io
import re
import tokenize
from collections import Counter
from dataclasses import dataclass, field, replace
from typing import Sequence

from mwbmigrate.analysis.names import MARKER_CONTINUATION, MARKER_PREFIX
from mwbmigrate.result import ReviewItem
from mwbmigrate.review import code_kind

MARKER_BYTES = (MARKER_PREFIX + "MWB").encode()  # a cheap test before the tokenizer runs
_EACH_CODE = re.compile(r"(?:^|; )(MWB\d{3}) ")


@dataclass
class _Reading:
    starts: dict[int, int] = field(default_factory=dict)  # line a logical line ends on -> its first line
    # (marker text, first line of its statement; None while a marker written above waits for it)
    markers: list[tuple[str, int | None]] = field(default_factory=list)


def _read(text: str) -> _Reading | None:
    """The logical lines and the markers of `text`; None when it does not tokenize."""
    reading = _Reading()
    logical_start: int | None = None
    continuing = False  # the last marker stands above its statement and may go on below
    try:
        for token in tokenize.generate_tokens(io.StringIO(text).readline):
            if token.type == tokenize.COMMENT:
                own_line = not token.line[: token.start[1]].strip()
                if continuing and own_line and token.string.startswith(MARKER_CONTINUATION):
                    body, owner = reading.markers[-1]
                    reading.markers[-1] = (body + " " + token.string[len(MARKER_CONTINUATION) :].strip(), owner)
                    continue
                at = token.string.find(MARKER_PREFIX + "MWB")
                continuing = at >= 0 and own_line and logical_start is None
                if at >= 0:
                    owner = None if own_line and logical_start is None else logical_start
                    reading.markers.append((token.string[at + len(MARKER_PREFIX) :], owner))
                continue
            if token.type != tokenize.NL:
                continuing = False
            if token.type in (tokenize.NEWLINE, tokenize.ENDMARKER):
                if logical_start is not None:
                    reading.starts[token.start[0]] = logical_start
                logical_start = None
            elif token.type not in (tokenize.NL, tokenize.INDENT, tokenize.DEDENT) and logical_start is None:
                logical_start = token.start[0]
                # Markers written above wait for the statement below them.
                reading.markers = [(body, logical_start if owner is None else owner) for body, owner in reading.markers]
    except (tokenize.TokenError, SyntaxError):
        return None
    return reading


def _column(lines: list[str], line: int) -> int:
    text = lines[line - 1] if 0 < line <= len(lines) else ""
    return len(text) - len(text.lstrip()) + 1


def _marker_entries(marker: str) -> list[tuple[str, str]]:
    """(code, reason) of each entry of one marker's text (after the prefix)."""
    starts = list(_EACH_CODE.finditer(marker))
    entries = []
    for index, match in enumerate(starts):
        end = starts[index + 1].start() if index + 1 < len(starts) else len(marker)
        entries.append((match.group(1), marker[match.end() : end].strip()))
    return entries


def _standing(reading: _Reading, lines: list[str], display_path: str) -> list[ReviewItem]:
    items = []
    for marker, owner in reading.markers:
        line = owner if owner is not None else len(lines)
        for code, reason in _marker_entries(marker):
            items.append(
                ReviewItem(code, display_path, line, _column(lines, line), reason, kind=code_kind(code), standing=True)
            )
    return items


def standing_markers(text: str, display_path: str) -> list[ReviewItem]:
    """One item per entry of each marker in `text`'s comments (never its strings), at the first line
    of its statement. Nothing when `text` does not tokenize (such a file is not processed)."""
    reading = _read(text) if MARKER_PREFIX + "MWB" in text else None
    return _standing(reading, text.splitlines(), display_path) if reading is not None else []


def final_review_items(text: str, display_path: str, reported: Sequence[ReviewItem]) -> tuple[ReviewItem, ...]:
    """`reported` (numbered at the lines their markers end) at their statements' first lines, then
    the markers standing in `text` that none of them reported (by code and reason, as many times as
    they stand), in line order."""
    if not reported and MARKER_PREFIX + "MWB" not in text:
        return tuple(reported)
    reading = _read(text)
    if reading is None:
        return tuple(reported)
    lines = text.splitlines()
    moved = []
    for item in reported:
        first = reading.starts.get(item.line, item.line)
        moved.append(item if first == item.line else replace(item, line=first, column=_column(lines, first)))
    left = Counter((item.code, " ".join(item.message.split())) for item in reported)
    standing = []
    for item in _standing(reading, lines, display_path):
        key = (item.code, " ".join(item.message.split()))
        if left[key]:
            left[key] -= 1
        else:
            standing.append(item)
    if not standing:
        return tuple(moved)
    return tuple(sorted(moved + standing, key=lambda item: (item.line, item.column)))
