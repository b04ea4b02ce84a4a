"""Replace references to `ModelWorkerBatch` with `ScheduleBatch`: annotations, generic subscripts,
`typing.cast`, `TypeVar` bounds, string annotations.

    def f(batch: ModelWorkerBatch) -> Optional[ModelWorkerBatch]   ->   def f(batch: ScheduleBatch) -> Optional[ScheduleBatch]
    Union[ScheduleBatch, ModelWorkerBatch]                         ->   ScheduleBatch
    def f(batch: ModelWorkerBatch): if batch is not None: ...      ->   def f(batch: Optional[ScheduleBatch]): ...

Refuses a direct construction `ModelWorkerBatch(...)`: a ScheduleBatch cannot be built from the
same fields (review item MWB111).
"""

from __future__ import annotations

import re

import libcst as cst
import libcst.matchers as m
from libcst.codemod.visitors import AddImportsVisitor, RemoveImportsVisitor
from libcst.metadata import ScopeProvider

from mwbmigrate.analysis.old_api import NEW_CLASS, OLD_CLASS, is_sglang_schedule_batch_module
from mwbmigrate.analysis.receivers import all_params
from mwbmigrate.codemods.base import MigrationCodemod

_UNION = m.Name("Union") | m.Attribute(attr=m.Name("Union"))


def _code(node: cst.CSTNode) -> str:
    return cst.Module([]).code_for_node(node)


class _NoneTests(cst.CSTVisitor):
    def __init__(self, name: str) -> None:
        self.name = name
        self.found = False

    def visit_Comparison(self, node: cst.Comparison) -> None:
        if m.matches(node, m.Comparison(
            left=m.Name(self.name),
            comparisons=[m.ComparisonTarget(operator=m.Is() | m.IsNot(), comparator=m.Name("None"))],
        )):
            self.found = True


class ReplaceClassReferences(MigrationCodemod):
    CODE = "MWB002"
    NAME = "class-references"
    SUMMARY = "Replace `ModelWorkerBatch` in annotations and type expressions with `ScheduleBatch`; collapse `Union`s; widen to `Optional` where the body tests `is None`."
    METADATA_DEPENDENCIES = (ScopeProvider,)

    @classmethod
    def applies_to(cls, text, state):
        return OLD_CLASS in text

    def __init__(self, context) -> None:
        super().__init__(context)
        self._old_local_names: set[str] = set()
        self._old_annotated_params: set[int] = set()

    def visit_Module(self, node: cst.Module) -> None:
        # Local spellings of the class, for string annotations that metadata does not resolve.
        scope = self.get_metadata(ScopeProvider, node, None)
        if scope is None:
            return
        # Read off the import itself: uses inside strings are all the references some modules have.
        for assignment in scope.assignments:
            node_ = assignment.node
            if not isinstance(node_, cst.ImportFrom) or isinstance(node_.names, cst.ImportStar):
                continue
            module = "." * len(node_.relative) + (cst.Module([]).code_for_node(node_.module) if node_.module else "")
            if not is_sglang_schedule_batch_module(module, self.state.location):
                continue
            for alias in node_.names:
                local = alias.asname.name if alias.asname is not None else alias.name
                if isinstance(alias.name, cst.Name) and alias.name.value == OLD_CLASS and isinstance(local, cst.Name):
                    if local.value == assignment.name:
                        self._old_local_names.add(assignment.name)

    def _replacement(self, node: cst.BaseExpression) -> cst.BaseExpression:
        if isinstance(node, cst.Attribute):
            return node.with_changes(attr=cst.Name(NEW_CLASS))
        return cst.Name(NEW_CLASS)

    def _is_reference(self, original: cst.BaseExpression) -> bool:
        if not self.names_old_class(original):
            return False
        parent = self.parent(original)
        if isinstance(parent, (cst.ImportAlias, cst.ClassDef)):
            return False
        if isinstance(parent, cst.Attribute) and parent.value is original:
            return False
        if isinstance(parent, cst.Call) and parent.func is original:
            self.review(original, "MWB111", f"`{OLD_CLASS}(...)` built directly: a ScheduleBatch cannot be built from these fields")
            return False
        return True

    def leave_Name(self, original_node: cst.Name, updated_node: cst.Name) -> cst.BaseExpression:
        return self._replacement(updated_node) if self._is_reference(original_node) else updated_node

    def leave_Attribute(self, original_node: cst.Attribute, updated_node: cst.Attribute) -> cst.BaseExpression:
        return self._replacement(updated_node) if self._is_reference(original_node) else updated_node

    def leave_SimpleString(self, original_node: cst.SimpleString, updated_node: cst.SimpleString):
        if not self._old_local_names or not self._in_annotation(original_node):
            return updated_node
        pattern = re.compile(r"\b(" + "|".join(map(re.escape, sorted(self._old_local_names))) + r")\b")
        new_value = pattern.sub(NEW_CLASS, updated_node.value)
        return updated_node.with_changes(value=new_value) if new_value != updated_node.value else updated_node

    def _in_annotation(self, node: cst.CSTNode) -> bool:
        current = node
        while current is not None:
            if isinstance(current, cst.Annotation):
                return True
            if isinstance(current, (cst.BaseStatement, cst.Module)):
                return False
            current = self.parent(current)
        return False

    def leave_Subscript(self, original_node: cst.Subscript, updated_node: cst.Subscript) -> cst.BaseExpression:
        if not m.matches(updated_node.value, _UNION):
            return updated_node
        seen: dict[str, cst.SubscriptElement] = {}
        for element in updated_node.slice:
            seen.setdefault(_code(element.slice), element)
        if len(seen) == len(updated_node.slice):
            return updated_node
        if len(seen) == 1:
            only = next(iter(seen.values())).slice
            if isinstance(only, cst.Index):
                RemoveImportsVisitor.remove_unused_import(self.context, "typing", "Union")
                return only.value
        elements = list(seen.values())
        elements[-1] = elements[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)
        return updated_node.with_changes(slice=elements)

    def visit_Param(self, node: cst.Param) -> None:
        if node.annotation is not None and self.names_old_class(node.annotation.annotation):
            self._old_annotated_params.add(id(node))

    def leave_FunctionDef(self, original_node: cst.FunctionDef, updated_node: cst.FunctionDef):
        # A parameter that callers pass None to: the body's `is None` test is the evidence.
        originals = all_params(original_node.params)
        widened = {p.name.value for p in originals if id(p) in self._old_annotated_params}
        if not widened:
            return updated_node

        def widen(param: cst.Param) -> cst.Param:
            if param.name.value not in widened or param.annotation is None:
                return param
            finder = _NoneTests(param.name.value)
            updated_node.body.visit(finder)
            if not finder.found:
                return param
            AddImportsVisitor.add_needed_import(self.context, "typing", "Optional")
            optional = cst.Subscript(
                value=cst.Name("Optional"),
                slice=[cst.SubscriptElement(cst.Index(param.annotation.annotation))],
            )
            return param.with_changes(annotation=param.annotation.with_changes(annotation=optional))

        params = updated_node.params
        return updated_node.with_changes(params=params.with_changes(
            posonly_params=[widen(p) for p in params.posonly_params],
            params=[widen(p) for p in params.params],
            kwonly_params=[widen(p) for p in params.kwonly_params],
        ))
