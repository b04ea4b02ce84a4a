"""`ReportWildShapes` (MWB011 wild-shapes): one walk of the module, dispatched to the shape reporters."""

from __future__ import annotations

from typing import ClassVar

import libcst as cst
from libcst.codemod import CodemodContext
from libcst.metadata import ScopeProvider

from mwbmigrate.analysis.names import OLD_PARAMETER
from mwbmigrate.analysis.old_api import OLD_CLASS
from mwbmigrate.analysis.version_gates import dotted
from mwbmigrate.codemods._shared import function_facts
from mwbmigrate.codemods.base import INSTALLED_OVER_OLD_API, MigrationCodemod, MigrationState
from mwbmigrate.codemods.wild_shapes.call_shapes import CallShapeReporter
from mwbmigrate.codemods.wild_shapes.construction import ConstructionReporter
from mwbmigrate.codemods.wild_shapes.copies import CopyReporter
from mwbmigrate.codemods.wild_shapes.facts import (
    FunctionFrame,
    FunctionScan,
    defines_old_method,
    local_instances,
    method_classes,
)
from mwbmigrate.codemods.wild_shapes.gates import GATE_CODES, VersionGateReporter
from mwbmigrate.codemods.wild_shapes.missing_attributes import MissingAttributeReporter
from mwbmigrate.codemods.wild_shapes.monkeypatches import MonkeypatchReporter
from mwbmigrate.codemods.wild_shapes.own_method import OwnMethodReporter
from mwbmigrate.codemods.wild_shapes.record_buffer import BUFFER, RECORDER, RecordBufferReporter
from mwbmigrate.codemods.wild_shapes.reporter import Handler, ShapeReporter
from mwbmigrate.codemods.wild_shapes.runtime_class_uses import RuntimeClassUseReporter

# The order each node's (and each assignment target's) handlers run in. Where shapes exclude each
# other at one site, the first claims it: a mock assigned to `x.get_model_worker_batch` is a mock
# (monkeypatches), any other value a run-time assignment of the method (own method), and only then
# is the target an untracked call result (call shapes). Checks that can both hold at one node keep
# the order of their markers: a replacement or run-time assignment before the attribute it sets
# (missing attributes), a mock keyword before the copy call it configures (copies).
REPORTERS: tuple[type[ShapeReporter], ...] = (
    VersionGateReporter,
    ConstructionReporter,
    MonkeypatchReporter,
    OwnMethodReporter,
    RuntimeClassUseReporter,
    CopyReporter,
    CallShapeReporter,
    MissingAttributeReporter,
    RecordBufferReporter,
)


class ReportWildShapes(MigrationCodemod):
    """Marks old-API shapes of forks, plugins and tests; rewrites nothing (see the package docstring).

    It walks the module once. Its own visits keep the facts the reporters share (the class and the
    function around the node, which names hold the old object); every node is then handed to the
    reporters registered for its type, and every assignment target to those that take part in
    `on_assigned`.
    """

    CODE = "MWB011"
    NAME = "wild-shapes"
    SUMMARY = "Mark old-API shapes of forks, plugins and tests (shims, fakes, monkeypatches, stubs, copies, fork-only fields); rewrites nothing."
    METADATA_DEPENDENCIES = (ScopeProvider,)
    TRIGGERS: ClassVar[tuple[str, ...]] = (OLD_PARAMETER, OLD_CLASS, BUFFER, RECORDER, *INSTALLED_OVER_OLD_API)
    REVIEW_CODES: ClassVar[tuple[str, ...]] = tuple(sorted({code for reporter in REPORTERS for code in reporter.CODES}))

    @classmethod
    def applies_to(cls, text: str, state: MigrationState) -> bool:
        return any(trigger in text for trigger in cls.TRIGGERS)

    # It visits gated regions (to put its markers there) but reports nothing else inside them:
    # the code stays as it is, so no rewrite hazard applies.
    SKIPS_GATED_REGIONS = False

    def __init__(self, context: CodemodContext) -> None:
        super().__init__(context)
        self.method_classes: set[str] = set()  # classes of this module defining get_model_worker_batch
        self.classes: list[tuple[str, bool]] = []  # classes around the node: (name, defines the old method)
        self._functions: list[FunctionFrame] = []
        self._accesses: set[cst.Name] = set()  # Names that read the old object
        self.reporters = [reporter(self) for reporter in REPORTERS]
        self._handlers: dict[type[cst.CSTNode], list[Handler]] = {}
        for reporter in self.reporters:
            for node_type, handler in reporter.handlers().items():
                self._handlers.setdefault(node_type, []).append(handler)
        self._assignment_reporters = [r for r in self.reporters if type(r).on_assigned is not ShapeReporter.on_assigned]

    def review(self, node: cst.CSTNode, code: str, reason: str, suggestion: str = "") -> None:
        if self.in_gated_region() and code not in GATE_CODES:
            return
        super().review(node, code, reason, suggestion)

    # -- dispatch -------------------------------------------------------------------------------
    def on_visit(self, node: cst.CSTNode) -> bool:
        if not super().on_visit(node):
            return False
        for handler in self._handlers.get(type(node), ()):
            if handler(node):
                break
        return True

    def _assigned(self, anchor: cst.CSTNode, target: cst.BaseExpression, value: cst.BaseExpression) -> None:
        for reporter in self._assignment_reporters:
            if reporter.on_assigned(anchor, target, value):
                return

    def visit_Assign(self, node: cst.Assign) -> None:
        for target in node.targets:
            self._assigned(node, target.target, node.value)

    def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
        if node.value is not None:
            self._assigned(node, node.target, node.value)

    # -- facts the reporters share --------------------------------------------------------------
    # A module importing another project's ModelWorkerBatch never reaches any codemod: the engine
    # checks `imports_foreign_old_class` once, before the first.
    def visit_Module(self, node: cst.Module) -> None:
        self.method_classes = method_classes(node)

    def visit_ClassDef(self, node: cst.ClassDef) -> None:
        self.classes.append((node.name.value, defines_old_method(node)))

    def leave_ClassDef(self, original_node: cst.ClassDef, updated_node: cst.ClassDef) -> cst.ClassDef:
        self.classes.pop()
        return updated_node

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        scan = FunctionScan(node)
        node.visit(scan)
        facts = function_facts(self, node)
        self._functions.append(
            FunctionFrame(node, dict(scan.tokens), scan.names, local_instances(node, self.method_classes), facts)
        )
        self._accesses |= facts.old_object_accesses()

    def leave_FunctionDef(self, original_node: cst.FunctionDef, updated_node: cst.FunctionDef) -> cst.FunctionDef:
        self._functions.pop()
        return updated_node

    @property
    def function(self) -> FunctionFrame | None:
        """The innermost function around the node being visited."""
        return self._functions[-1] if self._functions else None

    def reads_old_object(self, node: cst.CSTNode) -> bool:
        """Whether `node` is a Name that reads a name holding the old object (a parameter or a bound local)."""
        return node in self._accesses

    def ancestors(self) -> tuple[cst.CSTNode, ...]:
        return tuple(self._ancestors)

    def in_annotation(self) -> bool:
        return any(isinstance(a, cst.Annotation) for a in self._ancestors)

    def qualified_names(self, func: cst.BaseExpression) -> set[str]:
        """What a callee resolves to (`copy.copy` for `copy(...)` after `from copy import copy`)."""
        scope = self.get_metadata(ScopeProvider, func, None)
        names = {q.name for q in scope.get_qualified_names_for(func)} if scope is not None else set()
        spelled = dotted(func)
        if not names and spelled:
            names = {spelled}
        return names

    def mentions_old_class(self, node: cst.CSTNode) -> bool:
        """Whether SGLang's old class is named anywhere within `node` (a spec, an annotation)."""
        codemod = self

        class _Finder(cst.CSTVisitor):
            found = False

            def visit_Name(self, name: cst.Name) -> None:
                self.found = self.found or (name.value == OLD_CLASS and codemod.names_old_class(name))

            def visit_Attribute(self, attribute: cst.Attribute) -> bool:
                if attribute.attr.value == OLD_CLASS and codemod.names_old_class(attribute):
                    self.found = True
                return True

        finder = _Finder()
        node.visit(finder)
        return finder.found
