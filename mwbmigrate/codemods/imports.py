"""Import `ScheduleBatch` where `ModelWorkerBatch` was imported, in the same block.

    if TYPE_CHECKING:
        from sglang.srt.managers.schedule_batch import ModelWorkerBatch, MultimodalInputs
->
    if TYPE_CHECKING:
        from sglang.srt.managers.schedule_batch import MultimodalInputs, ScheduleBatch

No duplicate when `ScheduleBatch` is already imported in that scope; sorted name lists stay
sorted; an import nothing uses any more is removed. Kept as is while the module still uses the old
name (a refused construction, for instance).

A re-export is kept and reported (MWB146), never removed as unused: a name the module's `__all__`
lists (`=`, `+=`, `.append`, `.extend`, or computed from `dir()` / `globals()`), and a redundant
alias (`import ModelWorkerBatch as ModelWorkerBatch`, PEP 484's explicit re-export). Deleting it
would break every consumer that imports the class from this module, with nothing said; keeping it
fails on SGLang 0.5.13 where the module itself is imported, and the marker says why.

A name removed from a parenthesised list leaves its comments where it stood, as lines of their own;
the names that stay keep theirs, and a one-per-line list stays one per line. An import removed whole
hands the comments inside its parentheses on with those of its line (codemods/base.py `deleted`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Collection

import libcst as cst
from libcst.codemod import CodemodContext
from libcst.metadata import Assignment, ScopeProvider

from mwbmigrate.analysis.names import TYPE_COMMENT
from mwbmigrate.analysis.old_api import NEW_CLASS, OLD_CLASS, is_sglang_schedule_batch_module
from mwbmigrate.codemods.base import MigrationCodemod, comment_line, deleted, settle_block, settle_module


def _module_name(node: cst.ImportFrom) -> str:
    dots = "." * len(node.relative)
    module = cst.Module([]).code_for_node(node.module) if node.module is not None else ""
    return dots + module


def _alias_name(alias: cst.ImportAlias) -> str:
    return cst.Module([]).code_for_node(alias.name)


def _local_name(alias: cst.ImportAlias) -> str:
    if alias.asname is not None:
        return cst.Module([]).code_for_node(alias.asname.name)
    return _alias_name(alias)


class _NewClassUses(cst.CSTVisitor):
    """Whether the module reads `ScheduleBatch` anywhere outside import statements."""

    found = False

    def visit_Import(self, node: cst.Import) -> bool:
        return False

    def visit_ImportFrom(self, node: cst.ImportFrom) -> bool:
        return False

    def visit_Name(self, node: cst.Name) -> None:
        self.found = self.found or node.value == NEW_CLASS

    def visit_SimpleString(self, node: cst.SimpleString) -> None:
        self.found = self.found or NEW_CLASS in node.value

    def visit_Comment(self, node: cst.Comment) -> None:
        # A type comment names it for type checkers (class-references rewrites them too).
        self.found = self.found or (TYPE_COMMENT.search(node.value) is not None and NEW_CLASS in node.value)


_ALL = "__all__"
_ALL_EDITS = ("append", "extend", "insert")
_NAMESPACE_CALLS = ("dir", "globals", "locals", "vars")


class _Exports(cst.CSTVisitor):
    """The names a module's `__all__` lists, at module level (functions and classes are skipped).
    `computed`: some part of it is built from the module's own namespace, so any name may be in it."""

    def __init__(self) -> None:
        self.names: set[str] = set()
        self.computed = False

    def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
        return False

    def visit_ClassDef(self, node: cst.ClassDef) -> bool:
        return False

    def visit_Assign(self, node: cst.Assign) -> None:
        if any(_is_all(t.target) for t in node.targets):
            self._read(node.value)

    def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
        if _is_all(node.target) and node.value is not None:
            self._read(node.value)

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        if _is_all(node.target):
            self._read(node.value)

    def visit_Call(self, node: cst.Call) -> None:
        func = node.func
        if isinstance(func, cst.Attribute) and _is_all(func.value) and func.attr.value in _ALL_EDITS:
            for arg in node.args:
                self._read(arg.value)

    def _read(self, value: cst.BaseExpression) -> None:
        reader = _Strings()
        value.visit(reader)
        self.names |= reader.strings
        self.computed = self.computed or reader.computed


class _Strings(cst.CSTVisitor):
    def __init__(self) -> None:
        self.strings: set[str] = set()
        self.computed = False

    def visit_SimpleString(self, node: cst.SimpleString) -> None:
        value = node.evaluated_value
        if isinstance(value, str):
            self.strings.add(value)

    def visit_Call(self, node: cst.Call) -> None:
        if isinstance(node.func, cst.Name) and node.func.value in _NAMESPACE_CALLS:
            self.computed = True


def _is_all(node: cst.BaseExpression) -> bool:
    return isinstance(node, cst.Name) and node.value == _ALL


def _redundant_alias(alias: cst.ImportAlias) -> bool:
    return alias.asname is not None and _local_name(alias) == _alias_name(alias)


# -- removing and adding a name keeps every comment of the list --------------------------------------
#
# In a parenthesised list the comments live in the whitespace between the names: the comment ending
# a name's line in the gap after it (after its comma), the comment lines above a name in the gap
# before it, a footer in the gap before `)`. So the list is edited as names and gaps: removing a
# name joins the gaps on either side of it, adding one splits a gap in two.

_Gap = cst.BaseParenthesizableWhitespace
_ITEM_INDENT = "    "


@dataclass(frozen=True)
class _AliasList:
    """A `from` import's names, and the gaps around them: `gaps[i]` comes before `aliases[i]` (after
    `(`, or after the comma of the name before it), `gaps[-1]` closes the list (after a trailing
    comma, else before `)`). The aliases keep their own commas, whose whitespace after is replaced
    by the gaps when the list is rendered."""

    aliases: tuple[cst.ImportAlias, ...]
    gaps: tuple[_Gap, ...]
    trailing_comma: bool

    @classmethod
    def of(cls, node: cst.ImportFrom) -> _AliasList:
        if isinstance(node.names, cst.ImportStar):
            raise ValueError("a star import lists no names")
        aliases = tuple(node.names)
        first = node.lpar.whitespace_after if node.lpar is not None else node.whitespace_after_import
        last = aliases[-1].comma
        if isinstance(last, cst.Comma):
            closing: _Gap = last.whitespace_after
        else:
            closing = node.rpar.whitespace_before if node.rpar is not None else cst.SimpleWhitespace("")
        between = tuple(_gap_after(alias) for alias in aliases[:-1])
        return cls(aliases, (first, *between, closing), isinstance(last, cst.Comma))

    def without(self, index: int) -> _AliasList:
        """The list without `aliases[index]`: its comments stay where it stood (`_closed_up`)."""
        alias = self.aliases[index]
        joined = _closed_up(self.gaps[index], _own_comments(alias), self.gaps[index + 1])
        return _AliasList(
            (*self.aliases[:index], *self.aliases[index + 1 :]),
            (*self.gaps[:index], joined, *self.gaps[index + 2 :]),
            self.trailing_comma,
        )

    def with_alias(self, index: int, alias: cst.ImportAlias) -> _AliasList:
        """The list with `alias` added before `aliases[index]` (at the end for `len(aliases)`), on a
        line of its own in a list of one name per line."""
        before, after = _split(self.gaps[index], index == 0, self._item_gap())
        return _AliasList(
            (*self.aliases[:index], alias, *self.aliases[index:]),
            (*self.gaps[:index], before, after, *self.gaps[index + 1 :]),
            self.trailing_comma,
        )

    def node(self, node: cst.ImportFrom) -> cst.ImportFrom:
        """`node` with this list of names."""
        gaps, trailing_comma = self.gaps, self.trailing_comma
        if node.lpar is not None and len(self.aliases) == 1 and trailing_comma and not _breaks_line(gaps[-1]):
            # `(name,)` reads as a tuple; a comma that ends the line keeps the one-per-line layout.
            gaps, trailing_comma = (*gaps[:-1], cst.SimpleWhitespace("")), False
        last = len(self.aliases) - 1
        names = [
            alias.with_changes(
                comma=_comma(alias, gaps[i + 1]) if i < last or trailing_comma else cst.MaybeSentinel.DEFAULT
            )
            for i, alias in enumerate(self.aliases)
        ]
        if node.lpar is None:
            return node.with_changes(
                names=names, whitespace_after_import=cst.ensure_type(gaps[0], cst.SimpleWhitespace)
            )
        rpar = node.rpar
        if rpar is not None and not trailing_comma:
            rpar = rpar.with_changes(whitespace_before=gaps[-1])
        return node.with_changes(names=names, lpar=node.lpar.with_changes(whitespace_after=gaps[0]), rpar=rpar)

    def _item_gap(self) -> _Gap:
        """The gap before an added name, without comments: a new line at the names' indentation
        where the list breaks lines, a space where it is on one line."""
        for gap in self.gaps[:-1]:
            if isinstance(gap, cst.ParenthesizedWhitespace):
                return cst.ParenthesizedWhitespace(indent=gap.indent, last_line=gap.last_line)
        closing = self.gaps[-1]
        if isinstance(closing, cst.ParenthesizedWhitespace):
            indent = cst.SimpleWhitespace(closing.last_line.value + _ITEM_INDENT)
            return cst.ParenthesizedWhitespace(indent=closing.indent, last_line=indent)
        return cst.SimpleWhitespace(" ")


def _gap_after(alias: cst.ImportAlias) -> _Gap:
    # An alias built by a codemod may have no comma of its own: it renders as ", ".
    return alias.comma.whitespace_after if isinstance(alias.comma, cst.Comma) else cst.SimpleWhitespace(" ")


def _comma(alias: cst.ImportAlias, gap: _Gap) -> cst.Comma:
    own = alias.comma if isinstance(alias.comma, cst.Comma) else cst.Comma()
    return own.with_changes(whitespace_after=gap)


def _breaks_line(gap: _Gap) -> bool:
    return isinstance(gap, cst.ParenthesizedWhitespace)


def _closed_up(before: _Gap, own: list[cst.EmptyLine], after: _Gap) -> _Gap:
    """The one gap left where a name went from between `before` and `after`. A line break on either
    side stays, and the name's comments (`own`, then the one ending its line) become lines of their
    own in its place, at its indentation: the code goes, its comments stay where they were."""
    if not isinstance(after, cst.ParenthesizedWhitespace):
        if isinstance(before, cst.ParenthesizedWhitespace):
            return before.with_changes(empty_lines=[*before.empty_lines, *_indented(own, before)])
        if own:  # comments inside the name itself, on one line with its neighbours: never dropped
            return cst.ParenthesizedWhitespace(empty_lines=own, last_line=cst.SimpleWhitespace(_ITEM_INDENT))
        return before
    moved = [*own, *comment_line(after.first_line)]
    if isinstance(before, cst.ParenthesizedWhitespace):
        lines = [*before.empty_lines, *_indented(moved, before), *after.empty_lines]
        return after.with_changes(first_line=before.first_line, empty_lines=lines)
    # On one line with what comes before it: the name's line ends there, its comment below.
    lines = [*_indented(moved, after), *after.empty_lines]
    return after.with_changes(first_line=cst.TrailingWhitespace(), empty_lines=lines)


def _split(gap: _Gap, at_start: bool, item: _Gap) -> tuple[_Gap, _Gap]:
    """`gap` as the two around a name added in it: the comment ending the line before stays there,
    the comment lines above the next name (or closing the list) stay above it."""
    if isinstance(gap, cst.ParenthesizedWhitespace):
        layout = item if isinstance(item, cst.ParenthesizedWhitespace) else gap
        before = gap.with_changes(empty_lines=[], indent=layout.indent, last_line=layout.last_line)
        return before, gap.with_changes(first_line=cst.TrailingWhitespace())
    return (gap, item) if at_start else (item, gap)


def _indented(lines: list[cst.EmptyLine], gap: cst.ParenthesizedWhitespace) -> list[cst.EmptyLine]:
    """`lines` at the indentation `gap` leaves before the name that follows it."""
    return [line.with_changes(indent=gap.indent, whitespace=gap.last_line) for line in lines]


class _Comments(cst.CSTVisitor):
    """The comments under a node in order, as lines of their own: a line's comment through
    `comment_line` (what was about that line alone goes with it), a comment line as it is."""

    def __init__(self) -> None:
        self.lines: list[cst.EmptyLine] = []

    def visit_TrailingWhitespace(self, node: cst.TrailingWhitespace) -> None:
        self.lines += comment_line(node)

    def visit_EmptyLine(self, node: cst.EmptyLine) -> None:
        if node.comment is not None:
            self.lines.append(cst.EmptyLine(comment=node.comment))


def _comment_lines(node: cst.CSTNode) -> list[cst.EmptyLine]:
    comments = _Comments()
    node.visit(comments)
    return comments.lines


def _own_comments(alias: cst.ImportAlias) -> list[cst.EmptyLine]:
    """The comments inside a name and before its comma: the gaps hold all the others."""
    inside = _comment_lines(alias.with_changes(comma=cst.MaybeSentinel.DEFAULT))
    if isinstance(alias.comma, cst.Comma):
        inside += _comment_lines(alias.comma.whitespace_before)
    return inside


def inner_comments(node: cst.ImportFrom) -> list[cst.EmptyLine]:
    """The comments inside an import deleted whole (between its parentheses), as lines of their own:
    they go with its statement's (`deleted`), in order."""
    return _comment_lines(node)


def with_deleted_comments(line: cst.SimpleStatementLine, comments: list[cst.EmptyLine]) -> cst.SimpleStatementLine:
    """`line` with `comments` (`inner_comments` of the imports removed from it) below its leading
    lines: above what stays of it, or handed on with the rest when it is deleted."""
    return line.with_changes(leading_lines=[*line.leading_lines, *comments]) if comments else line


def _new_class_place(aliases: list[cst.ImportAlias], kept: list[cst.ImportAlias]) -> int:
    """Where the new class goes in `aliases`: before the first name kept after it in a sorted list,
    else at the end. In a sorted list whose old name it takes the place of, it lands where that stood."""
    names = [_alias_name(a) for a in aliases]
    if names == sorted(names):
        for alias in kept:
            if _alias_name(alias) > NEW_CLASS:
                return next(i for i, a in enumerate(aliases) if a is alias)
    return len(aliases)


def without_aliases(node: cst.ImportFrom, removed: Collection[int]) -> cst.ImportFrom:
    """`node` without the names at the indexes `removed` (not all of them), their comments left
    where they stood, the other names keeping theirs and the list its layout."""
    listed = _AliasList.of(node)
    for index in sorted(removed, reverse=True):
        listed = listed.without(index)
    return listed.node(node)


class MigrateImports(MigrationCodemod):
    CODE = "MWB001"
    NAME = "imports"
    SUMMARY = "Import `ScheduleBatch` instead of `ModelWorkerBatch` in the same block; drop duplicates and imports nothing uses."
    TRIGGERS = (OLD_CLASS,)
    REVIEW_CODES = ("MWB111", "MWB146")
    METADATA_DEPENDENCIES = (ScopeProvider,)

    def __init__(self, context: CodemodContext) -> None:
        super().__init__(context)
        self._new_class_needed = False
        self._new_class_imported = False
        self._old_names_in_use: set[str] = set()
        self._exports = _Exports()
        self._deleted_comments: list[cst.EmptyLine] = []  # inside the imports removed from the current line

    def visit_Module(self, node: cst.Module) -> None:
        uses = _NewClassUses()
        node.visit(uses)
        self._new_class_needed = uses.found
        node.visit(self._exports)
        scope = self.get_metadata(ScopeProvider, node, None)
        if scope is None:
            return
        for assignment in scope.assignments:
            if not isinstance(assignment, Assignment):
                continue  # a builtin: no import
            node_ = assignment.node
            if isinstance(node_, cst.ImportFrom) and is_sglang_schedule_batch_module(
                _module_name(node_), self.state.location
            ):
                if assignment.name == NEW_CLASS:
                    self._new_class_imported = True
                for alias in node_.names if not isinstance(node_.names, cst.ImportStar) else []:
                    if (
                        _alias_name(alias) == OLD_CLASS
                        and _local_name(alias) == assignment.name
                        and assignment.references
                    ):
                        self._old_names_in_use.add(assignment.name)

    def leave_ImportFrom(
        self, original_node: cst.ImportFrom, updated_node: cst.ImportFrom
    ) -> cst.BaseSmallStatement | cst.FlattenSentinel[cst.BaseSmallStatement] | cst.RemovalSentinel:
        if isinstance(updated_node.names, cst.ImportStar):
            return updated_node
        if not is_sglang_schedule_batch_module(_module_name(updated_node), self.state.location):
            return updated_node
        aliases = list(updated_node.names)
        exported = [a for a in aliases if _alias_name(a) == OLD_CLASS and self._reexports(a)]
        for alias in exported:
            self.review(original_node, "MWB146", self._reexport_reason(alias))
        old = [
            a
            for a in aliases
            if _alias_name(a) == OLD_CLASS and _local_name(a) not in self._old_names_in_use and a not in exported
        ]
        if not old:
            keeps_old = any(_alias_name(a) == OLD_CLASS for a in aliases)
            if any(_alias_name(a) == OLD_CLASS and _local_name(a) in self._old_names_in_use for a in aliases):
                self.review(
                    original_node,
                    "MWB111",
                    f"`{OLD_CLASS}` import kept: the module still uses the class (see its other markers)",
                )
            if keeps_old and self._new_class_needed and not self._new_class_imported:
                # The old name stays for a refused site; the new one is needed beside it.
                self._new_class_imported = True
                listed = _AliasList.of(updated_node).with_alias(len(aliases), cst.ImportAlias(name=cst.Name(NEW_CLASS)))
                return listed.node(updated_node)
            return updated_node
        listed = _AliasList.of(updated_node)
        kept = [a for a in aliases if a not in old]
        if self._new_class_needed and not self._new_class_imported and NEW_CLASS not in map(_local_name, kept):
            self._new_class_imported = True
            listed = listed.with_alias(_new_class_place(aliases, kept), cst.ImportAlias(name=cst.Name(NEW_CLASS)))
        removed = [i for i, alias in enumerate(listed.aliases) if alias in old]
        if len(removed) == len(listed.aliases):
            self._deleted_comments += inner_comments(updated_node)
            return cst.RemoveFromParent()  # and its line with it (leave_SimpleStatementLine)
        for index in reversed(removed):
            listed = listed.without(index)
        return listed.node(updated_node)

    def leave_SimpleStatementLine(
        self, original_node: cst.SimpleStatementLine, updated_node: cst.SimpleStatementLine
    ) -> cst.BaseStatement | cst.FlattenSentinel[cst.BaseStatement] | cst.RemovalSentinel:
        updated_node = with_deleted_comments(updated_node, self._deleted_comments)
        self._deleted_comments = []
        # Left empty by a removed import: the comment block above it (a design note, often) stays.
        return deleted(updated_node) if original_node.body and not updated_node.body else updated_node

    def leave_IndentedBlock(self, original_node: cst.IndentedBlock, updated_node: cst.IndentedBlock) -> cst.BaseSuite:
        return settle_block(original_node, updated_node)

    def leave_Module(self, original_node: cst.Module, updated_node: cst.Module) -> cst.Module:
        return settle_module(updated_node)

    def _reexports(self, alias: cst.ImportAlias) -> bool:
        """Public by PEP 484's conventions: listed in `__all__`, or imported under its own name."""
        return _redundant_alias(alias) or self._exports.computed or _local_name(alias) in self._exports.names

    def _reexport_reason(self, alias: cst.ImportAlias) -> str:
        local = _local_name(alias)
        if _redundant_alias(alias):
            how = f"imported `as {local}`"
        elif local in self._exports.names:
            how = f"`{local}` is in `__all__`"
        else:
            how = "`__all__` is computed from the module's names"
        return (
            f"re-export of `{OLD_CLASS}` kept ({how}): SGLang 0.5.13 has no such class, so this import "
            f"fails, and so does every consumer importing it from this module"
        )
