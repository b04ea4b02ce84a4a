"""Leave out the function bodies no codemod can act on, before LibCST ever parses them.

A module the prefilter lets through usually mentions the old API in a few functions of many: in
SGLang's scheduler, 16% of the text. Parsing, resolving scopes and walking the rest in every pass is
most of a run's cost. So the engine hands the codemods a reduced module in which the body of each
such function is one placeholder statement, and puts the original text back, byte for byte, into
the output (`Elision.restore`). The elided text never goes through LibCST, so it cannot change.

A function body is left out only when nothing in it can matter to any codemod of the pass:

* its text, decorators and signature included, holds none of the pass's trigger tokens, not even in
  a comment or a string;
* it binds no module-level name (`global`, `nonlocal`, `globals()`), so scopes elsewhere are the same;
* it mentions no name that holds or tests for the old API: a name assigned, imported or aliased on a
  module- or class-level line that holds a trigger, an attribute of `self` set from the old API (a
  stored snapshot, or `self.use_old = hasattr(w, "get_model_worker_batch")`, a version flag that
  gates its readers), any attribute set from a string naming the old API,
  a module-level function that mentions any of these (a monkeypatch installs it by its bare name),
  and, to a fixpoint, a module-level name assigned from such a name;
* it is a function directly in the module or in a class body (at any depth of classes) whose header
  (decorators, name, bases) mentions none of those words either. Functions
  under `if`/`try` (version-gated definitions) and everything inside a kept function stay whole, and
  the signature and decorators always stay, so call resolution and override checks see every method.

The reduction is invisible by construction, and `tests/engine/test_elision.py` checks it: on the
fixtures, the soundness cases and the real SGLang tree, the output and every review item are the
same with and without it.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from typing import Iterable, Sequence

from mwbmigrate.engine.source import source_lines

_PLACEHOLDER_WORD = "__mwbmigrate_elided_"
PLACEHOLDER = _PLACEHOLDER_WORD + "{}__"
_BINDS_MODULE_NAMES = ("global", "nonlocal", "globals")
_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef)


@dataclass(frozen=True)
class _Elided:
    number: int
    indent: str
    body: str  # the original lines the placeholder stands for, newlines included
    lines: int


@dataclass(frozen=True)
class Elision:
    """A reduced module, and what `restore` needs to rebuild the full text from its rewrite."""

    text: str
    elided: tuple[_Elided, ...]

    def restore(self, rewritten: str) -> tuple[str, list[tuple[int, int]]] | None:
        """The full text of a rewrite of `text`, and the line shifts: `(reduced line, extra lines)`
        for each placeholder. None when the rewrite moved, re-indented or dropped a placeholder
        (the engine then transforms the full text instead)."""
        lines = source_lines(rewritten)
        wanted = {PLACEHOLDER.format(e.number): e for e in self.elided}
        found: dict[int, tuple[int, _Elided]] = {}
        for index, line in enumerate(lines):
            if _PLACEHOLDER_WORD not in line:
                continue
            stripped = line.rstrip("\r\n")
            entry = wanted.get(stripped.strip())
            if entry is None or stripped != entry.indent + PLACEHOLDER.format(entry.number) or entry.number in found:
                return None
            found[entry.number] = (index, entry)
        if len(found) != len(self.elided):
            return None
        shifts: list[tuple[int, int]] = []
        for index, entry in sorted(found.values(), key=lambda item: item[0]):
            lines[index] = entry.body
            shifts.append((index + 1, entry.lines - 1))
        return "".join(lines), shifts


def restored_line(line: int, shifts: Sequence[tuple[int, int]]) -> int:
    """A line of the reduced output, as a line of the restored text."""
    return line + sum(extra for placeholder_line, extra in shifts if placeholder_line < line)


def elide(text: str, triggers: Iterable[str]) -> Elision | None:
    """The module with every body no codemod of the pass can act on left out; None when nothing
    can be left out, or the module is not one this Python parses (LibCST then sees it whole)."""
    if _PLACEHOLDER_WORD in text:
        return None
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    lines = source_lines(text)
    if not lines:
        return None
    trigger_words = tuple(dict.fromkeys(triggers))
    tainted = _names_holding_old_api(tree, lines, trigger_words)
    named: list[tuple[str, tuple[int, int, str]]] = []  # (function name, (first body line, last, indent)), 1-based
    _collect(tree.body, lines, trigger_words, tainted, named)
    spans = _spans_of_uncalled(named, lines)
    if not spans:
        return None
    out: list[str] = []
    elided: list[_Elided] = []
    position = 0  # 0-based index of the next line to copy
    for number, (first, last, indent) in enumerate(spans):
        out.extend(lines[position : first - 1])
        body = lines[first - 1 : last]
        newline = _newline_of(body[-1])
        out.append(indent + PLACEHOLDER.format(number) + newline)
        elided.append(_Elided(number, indent, "".join(body), len(body)))
        position = last
    out.extend(lines[position:])
    return Elision("".join(out), tuple(elided))


def _newline_of(line: str) -> str:
    for ending in ("\r\n", "\n", "\r"):
        if line.endswith(ending):
            return ending
    return ""


def _segment(lines: Sequence[str], first: int, last: int) -> str:
    return "".join(lines[first - 1 : last])


def _mentions(text: str, words: Sequence[str], names: frozenset[str]) -> bool:
    if any(word in text for word in words):
        return True
    return bool(names) and any(identifier in names for identifier in _IDENTIFIER.findall(text))


def _names_holding_old_api(tree: ast.Module, lines: Sequence[str], triggers: Sequence[str]) -> frozenset[str]:
    """Names another function could read the old API through: module and class names bound on a
    line holding a trigger (aliases, guarded imports, version flags) and attributes assigned from
    one (`self.use_old = hasattr(...)`), then, to a fixpoint, names bound from those names.
    A function's own locals are not among them: no other function can read them."""
    bindings: list[tuple[str, set[str]]] = []  # (the binding statement's text, the names it binds)
    _bindings(tree.body, lines, bindings, in_function=False)
    tainted: set[str] = set()
    changed = True
    while changed:
        changed = False
        frozen = frozenset(tainted)
        for text, names in bindings:
            if not names <= tainted and _mentions(text, triggers, frozen):
                tainted |= names
                changed = True
    return frozenset(tainted)


def _bindings(
    body: Sequence[ast.stmt],
    lines: Sequence[str],
    found: list[tuple[str, set[str]]],
    in_function: bool,
    in_class: bool = False,
) -> None:
    for statement in body:
        for node in ast.walk(statement) if not isinstance(statement, (*_FUNCTIONS, ast.ClassDef)) else (statement,):
            if isinstance(node, _FUNCTIONS) and not in_function and not in_class:
                # A kept module-level function can be installed elsewhere by its bare name
                # (`Worker.forward_batch_generation = _traced`): its name holds the old API too.
                start = min([node.lineno, *(d.lineno for d in node.decorator_list)])
                found.append((_segment(lines, start, node.end_lineno or node.lineno), {node.name}))
                continue
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                if not in_function:
                    for alias in node.names:  # `from m import (A, ModelWorkerBatch as B)` binds B from the trigger
                        text = alias.name + " " + (alias.asname or "")
                        found.append((text, {(alias.asname or alias.name).split(".")[0]}))
                continue
            value: ast.expr | None = None
            targets: list[ast.expr] = []
            binding: ast.stmt | ast.expr
            if isinstance(node, ast.Assign):
                binding, targets, value = node, list(node.targets), node.value
            elif isinstance(node, (ast.AnnAssign, ast.AugAssign, ast.NamedExpr)):
                binding, targets, value = node, [node.target], node.value
            if value is None:
                continue
            # What an object keeps (`self.use_old = hasattr(w, "get_model_worker_batch")`, a
            # snapshot stored in `self.records[i]`) is read by its other methods; a write to
            # another object's attribute is its own function's business.
            value_text = _segment(lines, value.lineno, value.end_lineno or value.lineno)
            checks = " ".join(
                c.value for c in ast.walk(value) if isinstance(c, ast.Constant) and isinstance(c.value, str)
            )
            for target in targets:
                for part in ast.walk(target):
                    if isinstance(part, ast.Attribute):
                        kept_on_self = isinstance(part.value, ast.Name) and part.value.id in ("self", "cls")
                        found.append((value_text if kept_on_self else checks, {part.attr}))
                    elif isinstance(part, ast.Name) and not in_function:
                        found.append((_segment(lines, binding.lineno, binding.end_lineno or binding.lineno), {part.id}))
        if isinstance(statement, _FUNCTIONS):
            _bindings(statement.body, lines, found, in_function=True)
        elif isinstance(statement, ast.ClassDef):
            _bindings(statement.body, lines, found, in_function=in_function, in_class=True)


def _collect(
    body: Sequence[ast.stmt],
    lines: Sequence[str],
    triggers: Sequence[str],
    tainted: frozenset[str],
    spans: list[tuple[str, tuple[int, int, str]]],
) -> None:
    for node in body:
        if isinstance(node, ast.ClassDef):
            start = min([node.lineno, *(d.lineno for d in node.decorator_list)])
            header = (
                _segment(lines, start, node.body[0].lineno - 1)
                if node.body[0].lineno > node.lineno
                else lines[node.lineno - 1]
            )
            if not _mentions(header, triggers, tainted):
                # A class named by a trigger (`class ScheduleBatch(`, a subclass of the old class)
                # stays whole: codemods read such a class as a unit.
                _collect(node.body, lines, triggers, tainted, spans)
        elif isinstance(node, _FUNCTIONS):
            span = _elidable_body(node, lines, triggers, tainted)
            if span is not None:
                spans.append((node.name, span))


# The lookbehind starts a match only where a name starts: without it a long run of name characters
# (a 200,000-character string) is matched again from every position inside it.
_CALLED = re.compile(r"(?<![A-Za-z0-9_])([A-Za-z_][A-Za-z0-9_]*)\s*\(")
_DEFINED = re.compile(r"\b(?:def|class)\s+[A-Za-z_][A-Za-z0-9_]*")  # a header names, it does not call


def _called_names(text: str) -> set[str]:
    return set(_CALLED.findall(_DEFINED.sub(" ", text)))


def _spans_of_uncalled(
    named: Sequence[tuple[str, tuple[int, int, str]]], lines: Sequence[str]
) -> list[tuple[int, int, str]]:
    """The bodies to leave out, less those of functions a kept body calls, to a fixpoint: a codemod
    may follow a call into its callee (a helper's gate or consumer, a signature it reads)."""
    elided = {index for index in range(len(named))}
    inside = [False] * (len(lines) + 2)
    for _, (first, last, _indent) in named:
        for number in range(first, last + 1):
            inside[number] = True
    kept_text = "".join(line for number, line in enumerate(lines, 1) if not inside[number])
    called = _called_names(kept_text)
    while True:
        now_kept = {index for index in elided if named[index][0] in called}
        if not now_kept:
            break
        elided -= now_kept
        for index in now_kept:
            first, last, _indent = named[index][1]
            called.update(_called_names(_segment(lines, first, last)))
    return [named[index][1] for index in sorted(elided)]


def _elidable_body(
    node: ast.FunctionDef | ast.AsyncFunctionDef,
    lines: Sequence[str],
    triggers: Sequence[str],
    tainted: frozenset[str],
) -> tuple[int, int, str] | None:
    start = min([node.lineno, *(d.lineno for d in node.decorator_list)])
    last = node.end_lineno
    if last is None or not node.body:
        return None
    whole = _segment(lines, start, last)
    if _mentions(whole, (*triggers, *_BINDS_MODULE_NAMES), tainted):
        return None
    first_statement = node.body[0]
    decorators = getattr(first_statement, "decorator_list", [])
    first = min([first_statement.lineno, *(d.lineno for d in decorators)])
    if first <= node.lineno or first > last:
        return None  # `def f(): return x`: the body shares the header's line
    line = lines[first - 1]
    if decorators and first < first_statement.lineno:
        # A decorated first statement starts at its `@`, one column left of the decorator.
        prefix = line.encode("utf-8")[: max(decorators[0].col_offset - 1, 0)]
    else:
        prefix = line.encode("utf-8")[: first_statement.col_offset]
    indent = prefix.decode("utf-8", "replace")
    if not indent or indent.strip(" \t"):
        return None  # the statement does not start its line after plain indentation
    # The header must end before the body's first line: no statement of the body shares a line
    # with anything outside it (`;`, a continuation), so whole lines can be swapped.
    return first, last, indent
