"""Import `ScheduleBatch` where `ModelWorkerBatch` was imported, in the same block.

    if TYPE_CHECKING:
        from sglang.srt.managers.schedule_batch import ModelWorkerBatch, MultimodalInputs
->
    if TYPE_CHECKING:
        from sglang.srt.managers.schedule_batch import MultimodalInputs, ScheduleBatch

No duplicate when `ScheduleBatch` is already imported in that scope; sorted name lists stay
sorted; an import nothing uses any more is removed. Kept as is while the module still uses the old
name (a refused construction, for instance).
"""

from __future__ import annotations

import libcst as cst
from libcst.metadata import ScopeProvider

from mwbmigrate.analysis.old_api import NEW_CLASS, OLD_CLASS, is_sglang_schedule_batch_module
from mwbmigrate.codemods.base import MigrationCodemod


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


class MigrateImports(MigrationCodemod):
    CODE = "MWB001"
    NAME = "imports"
    SUMMARY = "Import `ScheduleBatch` instead of `ModelWorkerBatch` in the same block; drop duplicates and imports nothing uses."
    METADATA_DEPENDENCIES = (ScopeProvider,)

    @classmethod
    def applies_to(cls, text, state):
        return OLD_CLASS in text

    def __init__(self, context) -> None:
        super().__init__(context)
        self._new_class_needed = False
        self._new_class_imported = False
        self._old_names_in_use: set[str] = set()

    def visit_Module(self, node: cst.Module) -> None:
        uses = _NewClassUses()
        node.visit(uses)
        self._new_class_needed = uses.found
        scope = self.get_metadata(ScopeProvider, node, None)
        if scope is None:
            return
        for assignment in scope.assignments:
            node_ = assignment.node
            if isinstance(node_, cst.ImportFrom) and is_sglang_schedule_batch_module(_module_name(node_), self.state.location):
                if assignment.name == NEW_CLASS:
                    self._new_class_imported = True
                for alias in node_.names if not isinstance(node_.names, cst.ImportStar) else []:
                    if _alias_name(alias) == OLD_CLASS and _local_name(alias) == assignment.name and assignment.references:
                        self._old_names_in_use.add(assignment.name)

    def leave_ImportFrom(self, original_node: cst.ImportFrom, updated_node: cst.ImportFrom):
        if isinstance(updated_node.names, cst.ImportStar):
            return updated_node
        if not is_sglang_schedule_batch_module(_module_name(updated_node), self.state.location):
            return updated_node
        aliases = list(updated_node.names)
        old = [a for a in aliases if _alias_name(a) == OLD_CLASS and _local_name(a) not in self._old_names_in_use]
        if not old:
            still_used = any(_alias_name(a) == OLD_CLASS for a in aliases)
            if still_used:
                self.review(original_node, "MWB111", f"`{OLD_CLASS}` import kept: the module still uses the class (see its other markers)")
            if still_used and self._new_class_needed and not self._new_class_imported:
                # The old name stays for a refused site; the new one is needed beside it.
                self._new_class_imported = True
                last = aliases[-1]
                aliases[-1] = last.with_changes(comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" ")))
                return updated_node.with_changes(names=[*aliases, cst.ImportAlias(name=cst.Name(NEW_CLASS), comma=last.comma)])
            return updated_node
        kept = [a for a in aliases if a not in old]
        names = [_local_name(a) for a in kept]
        if self._new_class_needed and not self._new_class_imported and NEW_CLASS not in names:
            kept.append(cst.ImportAlias(name=cst.Name(NEW_CLASS)))
            self._new_class_imported = True
            if [_alias_name(a) for a in aliases] == sorted(_alias_name(a) for a in aliases):
                kept.sort(key=_alias_name)
        if not kept:
            return cst.RemoveFromParent()
        # Re-deal the original commas by position so a parenthesised, one-per-line layout survives.
        commas = [a.comma for a in aliases]
        rebuilt = [alias.with_changes(comma=commas[i]) for i, alias in enumerate(kept)]
        rebuilt[-1] = rebuilt[-1].with_changes(comma=commas[-1])
        if len(rebuilt) == 1 and updated_node.lpar is not None and isinstance(rebuilt[0].comma, cst.Comma):
            rebuilt[0] = rebuilt[0].with_changes(comma=cst.MaybeSentinel.DEFAULT)
        return updated_node.with_changes(names=rebuilt)
