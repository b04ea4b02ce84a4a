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
"""

from __future__ import annotations

import libcst as cst
from libcst.codemod import CodemodContext
from libcst.metadata import Assignment, ScopeProvider

from mwbmigrate.analysis.old_api import NEW_CLASS, OLD_CLASS, TYPE_COMMENT, is_sglang_schedule_batch_module
from mwbmigrate.codemods.base import MigrationCodemod, deleted, settle_block, settle_module


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
                last = aliases[-1]
                aliases[-1] = last.with_changes(comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" ")))
                return updated_node.with_changes(
                    names=[*aliases, cst.ImportAlias(name=cst.Name(NEW_CLASS), comma=last.comma)]
                )
            return updated_node
        kept = [a for a in aliases if a not in old]
        names = [_local_name(a) for a in kept]
        if self._new_class_needed and not self._new_class_imported and NEW_CLASS not in names:
            kept.append(cst.ImportAlias(name=cst.Name(NEW_CLASS)))
            self._new_class_imported = True
            if [_alias_name(a) for a in aliases] == sorted(_alias_name(a) for a in aliases):
                kept.sort(key=_alias_name)
        if not kept:
            return cst.RemoveFromParent()  # and its line with it (leave_SimpleStatementLine)
        # Re-deal the original commas by position so a parenthesised, one-per-line layout survives.
        commas = [a.comma for a in aliases]
        rebuilt = [alias.with_changes(comma=commas[i]) for i, alias in enumerate(kept)]
        rebuilt[-1] = rebuilt[-1].with_changes(comma=commas[-1])
        if len(rebuilt) == 1 and updated_node.lpar is not None and isinstance(rebuilt[0].comma, cst.Comma):
            rebuilt[0] = rebuilt[0].with_changes(comma=cst.MaybeSentinel.DEFAULT)
        return updated_node.with_changes(names=rebuilt)

    def leave_SimpleStatementLine(
        self, original_node: cst.SimpleStatementLine, updated_node: cst.SimpleStatementLine
    ) -> cst.BaseStatement | cst.FlattenSentinel[cst.BaseStatement] | cst.RemovalSentinel:
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
