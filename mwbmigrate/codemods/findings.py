"""Review findings as data: recorded by the codemods, rendered as marker comments once, at the end.

A finding is anchored to the *marker slot* of its statement: the `TrailingWhitespace` that ends the
statement's (header) line, where its `# mwbmigrate: CODE reason` comment goes. Codemods rebuild
statements with `with_changes`, reorder them, copy them into a `FlattenSentinel` or fold them into
another statement; the slot object travels with whatever keeps the line's comment, so a finding
ends exactly where a comment written during the pass would have ended. Each pass moves the
findings it saw on an old slot to the slot that replaced it (`PassFindings.moved`); the engine
adopts a pass's anchors only when it adopts the pass's module (`FindingStore.commit`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Iterator, Mapping, Sequence

import libcst as cst
from libcst.metadata import CodeRange

from mwbmigrate.analysis.names import MARKER_PREFIX

MAX_REASON_CHARS = 480  # a marker wraps above its statement; a reason is cut only where it quotes runaway source


def one_line_reason(reason: str) -> str:
    """A reason as a marker can carry it: a comment is one line (LibCST rejects a newline in one,
    and a reason may quote multi-line source), so whitespace runs collapse and long text is cut."""
    text = " ".join(reason.split())
    if len(text) > MAX_REASON_CHARS:
        text = text[: MAX_REASON_CHARS - 3].rstrip() + "..."
    return text


def marker_text(code: str, reason: str) -> str:
    return f"{MARKER_PREFIX}{code} {one_line_reason(reason)}"


def statement_marker(findings: Sequence[Finding]) -> str:
    """The one marker a statement carries: each of its codes with its reason, in the order found
    (`# mwbmigrate: MWB101 reason; MWB106 reason`)."""
    return MARKER_PREFIX + "; ".join(dict.fromkeys(f"{f.code} {f.reason}" for f in findings))


_MARKED_CODE = re.compile(r"(?:mwbmigrate: |; )(MWB\d{3}) ")


def marked_codes(markers: str) -> set[str]:
    """The codes that marker text names (one marker lists several, `statement_marker`)."""
    return set(_MARKED_CODE.findall(markers))


@dataclass(frozen=True)
class Finding:
    """One review item: what the tool could not migrate with certainty, and why."""

    code: str
    reason: str  # one line (one_line_reason)
    suggestion: str = ""

    @property
    def text(self) -> str:
        return f"{MARKER_PREFIX}{self.code} {self.reason}"


def marker_slot(statement: object) -> cst.TrailingWhitespace | None:
    """Where a statement's marker goes: the whitespace ending its (header) line (see add_marker)."""
    if isinstance(statement, cst.SimpleStatementLine):
        return statement.trailing_whitespace
    body = getattr(statement, "body", None)
    if isinstance(body, cst.IndentedBlock):
        return body.header
    if isinstance(body, cst.SimpleStatementSuite):
        return body.trailing_whitespace
    return None


def slot_comment(slot: cst.TrailingWhitespace | None) -> str:
    return slot.comment.value if slot is not None and slot.comment is not None else ""


def with_marker(whitespace: cst.TrailingWhitespace, text: str) -> cst.TrailingWhitespace:
    if whitespace.comment is not None:
        if text in whitespace.comment.value:
            return whitespace
        return whitespace.with_changes(comment=cst.Comment(f"{whitespace.comment.value}  {text}"))
    return whitespace.with_changes(whitespace=cst.SimpleWhitespace("  "), comment=cst.Comment(text))


def rendered_comment(comment: str, texts: list[str]) -> str:
    """The comment `with_marker` leaves after adding `texts` in order to `comment`."""
    for text in texts:
        if not comment:
            comment = text
        elif text not in comment:
            comment = f"{comment}  {text}"
    return comment


class _Slots:
    """Findings by slot object (identity: a slot is kept referenced, so its id is never reused)."""

    def __init__(self, entries: Mapping[int, tuple[cst.TrailingWhitespace, list[Finding]]] | None = None) -> None:
        self._entries: dict[int, tuple[cst.TrailingWhitespace, list[Finding]]] = (
            {key: (slot, list(found)) for key, (slot, found) in entries.items()} if entries else {}
        )

    def at(self, slot: object) -> list[Finding]:
        entry = self._entries.get(id(slot))
        return entry[1] if entry is not None and entry[0] is slot else []

    def add(self, slot: cst.TrailingWhitespace, findings: list[Finding]) -> None:
        entry = self._entries.get(id(slot))
        if entry is None or entry[0] is not slot:
            entry = self._entries[id(slot)] = (slot, [])
        entry[1].extend(findings)

    def __iter__(self) -> Iterator[tuple[cst.TrailingWhitespace, list[Finding]]]:
        return iter(self._entries.values())

    def __bool__(self) -> bool:
        return any(found for _, found in self._entries.values())


@dataclass
class PassFindings:
    """What one codemod's pass did to the findings: the module it returns sees `slots`; the module
    it was given keeps `fallback` (the store's, plus this pass's new findings on the original slots)."""

    slots: _Slots
    fallback: _Slots
    added_text: bool = False  # a new marker text: the pass changed the module's rendered output

    def moved(self, old: object, new: object) -> None:
        """`old`'s findings go with `new` too (a slot rebuilt, or a line's comment folded into another)."""
        found = self.slots.at(old)
        if found and isinstance(new, cst.TrailingWhitespace) and new is not old:
            self.slots.add(new, list(found))

    def attach(self, original: object, updated: object, findings: list[Finding]) -> None:
        """This pass's findings on a statement: on its new slot, or its original one if the module is not adopted."""
        new_slot, old_slot = marker_slot(updated), marker_slot(original)
        if new_slot is None:
            return  # removed or replaced by several statements: the marker goes with it, as a comment would
        present = [f.text for f in self.slots.at(new_slot)]
        comment = rendered_comment(slot_comment(new_slot), present)
        for finding in findings:
            if finding.text not in comment:
                self.added_text = True
                comment = rendered_comment(comment, [finding.text])
        self.slots.add(new_slot, findings)
        if old_slot is not None:
            self.fallback.add(old_slot, findings)


@dataclass
class FindingStore:
    """Every finding of one module's run, by marker slot of the module the engine holds now."""

    slots: _Slots = field(default_factory=_Slots)

    def begin(self) -> PassFindings:
        return PassFindings(slots=_Slots(self.slots._entries), fallback=_Slots(self.slots._entries))

    def commit(self, done: PassFindings, adopted: bool) -> None:
        self.slots = done.slots if adopted else done.fallback

    def at(self, slot: object) -> list[Finding]:
        return self.slots.at(slot)

    def __bool__(self) -> bool:
        return bool(self.slots)


class RenderFindings(cst.CSTTransformer):
    """Ends each statement's line with its one marker: `markers` maps a slot (by identity) to the
    text it gets (engine/marker_layout.py decides, and lifts a marker too long for its line)."""

    def __init__(self, markers: Mapping[int, tuple[cst.TrailingWhitespace, str]]) -> None:
        super().__init__()
        self.markers = markers

    def leave_TrailingWhitespace(
        self, original_node: cst.TrailingWhitespace, updated_node: cst.TrailingWhitespace
    ) -> cst.TrailingWhitespace:
        entry = self.markers.get(id(original_node))
        return with_marker(updated_node, entry[1]) if entry is not None and entry[0] is original_node else updated_node


def placed_findings(store: FindingStore, positions: Mapping[cst.CSTNode, CodeRange]) -> list[tuple[int, int, Finding]]:
    """(line, order on that line, finding) for each finding whose slot is in the final module, one per
    marker text a slot shows (a text already on the line is reported once, where it stands)."""
    placed: list[tuple[int, int, Finding]] = []
    for slot, found in store.slots:
        where = positions.get(slot)
        if where is None or not found:
            continue  # its statement is gone: so is the marker a comment would have been
        comment = rendered_comment(slot_comment(slot), [f.text for f in found])
        seen: set[str] = set()
        for finding in found:
            if finding.text not in seen:
                seen.add(finding.text)
                placed.append((where.start.line, comment.find(finding.text), finding))
    placed.sort(key=lambda item: (item[0], item[1]))
    return placed
