"""Where a statement's one marker goes: at the end of its line while that line stays within the
project's line length, else on comment lines of its own right above the statement, wrapped.

    x = batch.get_model_worker_batch()  # mwbmigrate: MWB101 kept: `batch` is rebound

    # mwbmigrate: MWB101 `get_model_worker_batch()` kept: `batch` is rebound before the last use
    #   of `mwb`
    mwb = batch.get_model_worker_batch()

The codemods only ever end a line with a marker (codemods/findings.py); this runs once on the final
text, so review items are renumbered here for the lines it inserts.
"""

from __future__ import annotations

import textwrap
from dataclasses import dataclass
from typing import Callable, Mapping, Sequence

import libcst as cst
from libcst.metadata import CodeRange

from mwbmigrate.analysis.names import MARKER_CONTINUATION
from mwbmigrate.analysis.positions import LocalPositions
from mwbmigrate.codemods.base import statement_markers
from mwbmigrate.codemods.findings import Finding, FindingStore, marker_slot, statement_marker
from mwbmigrate.engine.source import source_lines

MIN_WRAP_WIDTH = 40  # a deeply indented marker still gets readable lines


@dataclass(frozen=True)
class MarkerPlacement:
    slot: cst.TrailingWhitespace
    slot_line: int  # the line the marker ends
    statement_line: int  # the first line of its statement (its first decorator, for a definition)
    statement_column: int
    text: str


class _Statements(cst.CSTVisitor):
    def __init__(self) -> None:
        super().__init__()
        self.found: list[tuple[cst.CSTNode, cst.TrailingWhitespace]] = []

    def on_visit(self, node: cst.CSTNode) -> bool:
        slot = marker_slot(node)
        if slot is not None:
            self.found.append((node, slot))
        return not isinstance(node, cst.BaseExpression)  # no expression holds a statement


def marker_placements(
    module: cst.Module,
    store: FindingStore,
    shown: Callable[[Finding], bool],
    positions: Mapping[cst.CSTNode, CodeRange],
) -> list[MarkerPlacement]:
    """The marker each statement of `module` gets (before rendering: the lines are the same after),
    less what its markers from an earlier run already say."""
    collector = _Statements()
    module.visit(collector)
    placements = []
    for statement, slot in collector.found:
        present = " ".join(statement_markers(statement).split())
        found = [
            finding
            for finding in store.at(slot)
            if shown(finding) and " ".join(f"{finding.code} {finding.reason}".split()) not in present
        ]
        where, start = positions.get(slot), positions.get(statement)
        if found and where is not None and start is not None:
            text = statement_marker(found)
            placements.append(MarkerPlacement(slot, where.start.line, start.start.line, start.start.column, text))
    return placements


def wrapped_marker(text: str, indent: str, line_length: int) -> list[str]:
    width = max(line_length - len(indent), MIN_WRAP_WIDTH)
    lines = textwrap.wrap(text, width, subsequent_indent=MARKER_CONTINUATION, break_on_hyphens=False)
    return [indent + line for line in lines]


def lift_long_markers(
    text: str, placements: Sequence[MarkerPlacement], line_length: int
) -> tuple[str, list[tuple[int, int]]]:
    """`text` with each marker that makes its line longer than `line_length` moved above its
    statement, and the shifts `(first line, lines inserted there)`. A block already standing there
    (an earlier run's) is not written twice."""
    lines = source_lines(text)
    shifts: list[tuple[int, int]] = []
    for placement in sorted(placements, key=lambda p: (p.statement_line, p.slot_line), reverse=True):
        if placement.slot_line > len(lines) or placement.statement_line > len(lines):
            continue
        line = lines[placement.slot_line - 1]
        body = line.rstrip("\r\n")
        ending = line[len(body) :] or "\n"
        if len(body) <= line_length or not body.endswith(placement.text):
            continue
        head = body[: -len(placement.text)].rstrip()
        first = lines[placement.statement_line - 1]
        indent = first[: len(first) - len(first.lstrip(" \t"))]
        if not head.strip() or len(indent) != placement.statement_column:
            continue  # not a line that starts its statement: the marker stays where it is
        block = wrapped_marker(placement.text, indent, line_length)
        lines[placement.slot_line - 1] = head + ending
        above = [
            existing.rstrip("\r\n")
            for existing in lines[max(placement.statement_line - 1 - len(block), 0) : placement.statement_line - 1]
        ]
        if above == block:
            continue
        at = placement.statement_line - 1
        lines[at:at] = [marker_line + ending for marker_line in block]
        shifts.append((placement.statement_line, len(block)))
    return "".join(lines), shifts


def shifted_line(line: int, shifts: Sequence[tuple[int, int]]) -> int:
    """A line before `lift_long_markers`, as a line after it."""
    return line + sum(count for first, count in shifts if first <= line)


class _SlotCollector(cst.CSTVisitor):
    def __init__(self) -> None:
        super().__init__()
        self.slots: list[cst.TrailingWhitespace] = []

    def on_visit(self, node: cst.CSTNode) -> bool:
        slot = marker_slot(node)
        if slot is not None:
            self.slots.append(slot)
        return not isinstance(node, cst.BaseExpression)  # no expression holds a statement


def slot_lines(text: str) -> list[int]:
    """The line of each statement's marker slot, in order, as the engine numbers review items
    (engine/transform.py `_review_items`); empty when the text does not parse."""
    try:
        module = cst.parse_module(text)
    except (cst.ParserSyntaxError, RecursionError):
        return []
    collector = _SlotCollector()
    module.visit(collector)
    positions = LocalPositions().within(module)
    return [positions[slot].start.line for slot in collector.slots]
