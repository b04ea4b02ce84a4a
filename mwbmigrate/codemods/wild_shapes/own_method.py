"""Shape 2: other classes that define `get_model_worker_batch`. Fixtures: shape02_definitions_reported,
shape02_calls_on_own_class_kept.

    class FakeBatch:
        def get_model_worker_batch(self):   # mwbmigrate: MWB123 `FakeBatch.get_model_worker_batch` returns self (a fake) ...
            return self

    def run():
        fake = FakeBatch()
        mwb = fake.get_model_worker_batch()   # mwbmigrate: MWB129 ... calls `FakeBatch`'s own method, not SGLang's: kept

    batch.get_model_worker_batch = lambda: batch   # mwbmigrate: MWB124 `get_model_worker_batch` assigned a lambda at run time ...

    MWB123  a class other than SGLang's `ScheduleBatch` that defines `get_model_worker_batch`
    MWB124  `get_model_worker_batch` assigned at run time (a lambda, `setattr`)
    MWB129  `get_model_worker_batch()` on an object whose class (in this module) defines its own
"""

from __future__ import annotations

from collections.abc import Mapping

import libcst as cst
from libcst.metadata import ScopeProvider

from mwbmigrate.analysis.calls import last_name
from mwbmigrate.analysis.old_api import NEW_CLASS, OLD_METHOD, is_sglang_schedule_batch_module
from mwbmigrate.analysis.receivers import old_method_call
from mwbmigrate.analysis.version_gates import string_value
from mwbmigrate.codemods.wild_shapes.facts import code
from mwbmigrate.codemods.wild_shapes.reporter import Handler, ShapeReporter


class OwnMethodReporter(ShapeReporter):
    SHAPE = "2: other classes that define `get_model_worker_batch`"
    CODES = ("MWB123", "MWB124", "MWB129")

    def handlers(self) -> Mapping[type[cst.CSTNode], Handler]:
        return {cst.FunctionDef: self.visit_function, cst.Call: self.visit_call}

    # -- definitions --------------------------------------------------------------------------
    def visit_function(self, node: cst.FunctionDef) -> None:
        if node.name.value != OLD_METHOD:
            return
        classes = self.shapes.classes
        owner = classes[-1][0] if classes and self._directly_in_class(node) else None
        if owner is None:
            self.review(
                node,
                "MWB123",
                f"a function named `{OLD_METHOD}`: 0.5.13 callers pass the batch itself and never call it",
            )
            return
        if owner == NEW_CLASS and self.shapes.state.location.is_schedule_batch_module:
            return  # SGLang's own method: class-removal deletes it
        if self._subclasses_schedule_batch():
            reason = f"`{owner}` subclasses ScheduleBatch and overrides `{OLD_METHOD}`, which 0.5.13 neither has nor calls: move its logic to where the batch is consumed"
        elif _returns_self(node):
            reason = f"`{owner}.{OLD_METHOD}` returns self (a fake): 0.5.13 never calls it; drop it once callers pass the object itself"
        else:
            reason = f"`{owner}` defines its own `{OLD_METHOD}` (an adapter?): calls on it are not SGLang's and are kept; 0.5.13 callers pass the batch itself"
        self.review(node, "MWB123", reason)

    def _directly_in_class(self, node: cst.FunctionDef) -> bool:
        parent = self.shapes.parent(node)
        return isinstance(parent, cst.IndentedBlock) and isinstance(self.shapes.parent(parent), cst.ClassDef)

    def _subclasses_schedule_batch(self) -> bool:
        """Whether the innermost class around the node names SGLang's ScheduleBatch among its bases."""
        for ancestor in reversed(self.shapes.ancestors()):
            if isinstance(ancestor, cst.ClassDef):
                for base in ancestor.bases:
                    scope = self.shapes.get_metadata(ScopeProvider, base.value, None)
                    names = scope.get_qualified_names_for(base.value) if scope is not None else set()
                    for qualified in names:
                        module, _, name = qualified.name.rpartition(".")
                        if name == NEW_CLASS and (
                            is_sglang_schedule_batch_module(module, self.shapes.state.location) or not module
                        ):
                            return True
                return False
        return False

    # -- calls that reach them, and run-time assignments ----------------------------------------
    def visit_call(self, node: cst.Call) -> None:
        if isinstance(node.func, cst.Attribute) and node.func.attr.value == OLD_METHOD:
            owner = self.owner_of(node.func.value)
            if owner is not None:
                self.review(
                    node,
                    "MWB129",
                    f"`{code(node.func.value)}.{OLD_METHOD}()` calls `{owner}`'s own method, not SGLang's: kept",
                )
        if last_name(node.func) == "setattr" and len(node.args) >= 3:
            if string_value(node.args[1].value) == OLD_METHOD:
                self.review(
                    node, "MWB124", f"`{OLD_METHOD}` set at run time with setattr: 0.5.13 callers never call it"
                )

    def on_assigned(self, anchor: cst.CSTNode, target: cst.BaseExpression, value: cst.BaseExpression) -> bool:
        if isinstance(target, cst.Attribute) and target.attr.value == OLD_METHOD:
            # (a mock assigned there is the monkeypatch reporter's, which claims it first)
            kind = "a lambda" if isinstance(value, cst.Lambda) else f"`{code(value)}`"
            self.review(anchor, "MWB124", f"`{OLD_METHOD}` assigned {kind} at run time: 0.5.13 callers never call it")
            return True
        call = old_method_call(value)
        if call is None or not isinstance(target, cst.Name) or self.shapes.function is None:
            return False
        owner = self.owner_of(call.func.value) if isinstance(call.func, cst.Attribute) else None
        if owner is None:
            return False
        self._mark_uses(target.value, "MWB129", f"`{target.value}` holds what `{owner}.{OLD_METHOD}()` returned: kept")
        return True

    def owner_of(self, receiver: cst.BaseExpression) -> str | None:
        """The class of this module whose own `get_model_worker_batch` a call on `receiver` reaches:
        `self` in such a class, or a local bound to `SuchClass(...)`."""
        classes = self.shapes.classes
        if isinstance(receiver, cst.Name) and receiver.value == "self" and classes and classes[-1][1]:
            return classes[-1][0]
        function = self.shapes.function
        if isinstance(receiver, cst.Name) and function is not None:
            return function.local_instances.get(receiver.value)
        return None

    def _mark_uses(self, name: str, code: str, reason: str) -> None:
        """Mark every statement of the current function that reads local `name`."""
        function = self.shapes.function
        if function is None:
            return
        scope = self.shapes.get_metadata(ScopeProvider, function.node.body, None)
        if scope is None:
            return
        for assignment in scope.assignments[name]:
            for reference in assignment.references:
                statement = function.names.get(reference.node) if isinstance(reference.node, cst.Name) else None
                if statement is not None:
                    self.review(statement, code, reason)


def _returns_self(node: cst.FunctionDef) -> bool:
    body = node.body.body if isinstance(node.body, cst.IndentedBlock) else []
    statements = [s for s in body if not (isinstance(s, cst.SimpleStatementLine) and isinstance(s.body[0], cst.Expr))]
    if len(statements) != 1 or not isinstance(statements[0], cst.SimpleStatementLine):
        return False
    small = statements[0].body[0]
    return isinstance(small, cst.Return) and isinstance(small.value, cst.Name) and small.value.value == "self"
