"""Shape 8: call shapes whose result is not tracked, and `model_worker_batch` bound by anything
else. Fixtures: shape08_call_shapes (and shape06_names_that_lie, where nothing may be marked).

    f(batch.get_model_worker_batch())            # after: f(batch) (inlined, nothing to mark)
    mwb, step = batch.get_model_worker_batch(), 0   # mwbmigrate: MWB135 `get_model_worker_batch()` unpacked into `mwb`, `step` ...
    self.last = batch.get_model_worker_batch()      # mwbmigrate: MWB135 `get_model_worker_batch()` stored in `self.last`: kept ...
    for model_worker_batch in batches:              # mwbmigrate: MWB134 `model_worker_batch` is a loop variable: not renamed, kept

Shape 6 (names that lie: `_from_model_worker_batch`, `"base_model_worker_batch"`, a parameter
typed as something else) needs no reporter: the renaming codemods touch exactly what holds the old
object, and its fixture checks that nothing else is touched or marked.

    MWB134  `model_worker_batch` bound by something other than `get_model_worker_batch()`, or an
            attribute of that name: not provably the old object, kept
    MWB135  `get_model_worker_batch()` whose result is not bound to a plain local, or whose
            receiver is not a plain name: kept (or only inlined), its result is not tracked
"""

from __future__ import annotations

from collections.abc import Mapping

import libcst as cst
from libcst.metadata import Assignment

from mwbmigrate.analysis.names import OLD_PARAMETER
from mwbmigrate.analysis.old_api import OLD_METHOD
from mwbmigrate.analysis.receivers import old_method_call
from mwbmigrate.codemods.wild_shapes.facts import FunctionFrame, code
from mwbmigrate.codemods.wild_shapes.reporter import Handler, ShapeReporter


class CallShapeReporter(ShapeReporter):
    SHAPE = "8: call shapes"
    CODES = ("MWB134", "MWB135")

    def handlers(self) -> Mapping[type[cst.CSTNode], Handler]:
        return {cst.FunctionDef: self.visit_function, cst.Attribute: self.visit_attribute}

    def on_assigned(self, anchor: cst.CSTNode, target: cst.BaseExpression, value: cst.BaseExpression) -> bool:
        if not self.shapes.state.live_batch and self.shapes.function is not None:
            # By default worker-batch-calls keeps each of these calls as the snapshot in code (MWB182).
            return _has_old_method_call(value)
        if isinstance(target, (cst.Tuple, cst.List)) and _has_old_method_call(value):
            names = ", ".join(f"`{code(e.value)}`" for e in target.elements)
            self.review(
                anchor,
                "MWB135",
                f"`{OLD_METHOD}()` unpacked into {names}: the batch is inlined, but the names are not merged and their field reads are not migrated",
            )
            return True
        call = old_method_call(value)
        if call is None or not isinstance(call.func, cst.Attribute):
            return False
        receiver = call.func.value
        if not isinstance(target, cst.Name):
            self.review(
                anchor,
                "MWB135",
                f"`{OLD_METHOD}()` stored in `{code(target)}`: kept (attributes and containers are not tracked)",
            )
        elif not isinstance(receiver, cst.Name):
            self.review(
                anchor,
                "MWB135",
                f"`{OLD_METHOD}()` on `{code(receiver)}`, not a plain name: kept; `{target.value}` is not merged into the receiver",
            )
        elif self.shapes.function is None:
            self.review(anchor, "MWB135", f"`{OLD_METHOD}()` at module level: kept")
        else:
            return False
        return True

    def visit_attribute(self, node: cst.Attribute) -> None:
        if not self.shapes.state.live_batch:
            return  # every old object is now a snapshot kept in code, which behaves as it did
        if node.attr.value == OLD_PARAMETER and not self.shapes.reads_old_object(node.value):
            self.review(
                node,
                "MWB134",
                f"attribute `.{OLD_PARAMETER}` kept: attributes are not tracked (it may hold the old object)",
            )

    def visit_function(self, node: cst.FunctionDef) -> None:
        frame = self.shapes.function
        if frame is not None and frame.node is node and self.shapes.state.live_batch:
            self._report_unproven_locals(frame)

    def _report_unproven_locals(self, frame: FunctionFrame) -> None:
        """A local `model_worker_batch` that no `get_model_worker_batch()` on a plain name binds is
        not provably the old object: it and its uses are kept, and marked."""
        facts, tokens = frame.facts, frame.tokens
        scope = facts.scope
        if scope is None or OLD_PARAMETER in facts.aliases:
            return
        assignments = [a for a in scope.assignments[OLD_PARAMETER] if isinstance(a, Assignment)]
        if not assignments or any(isinstance(a.node, cst.Param) for a in assignments):
            return
        if any(_bound_from_call_on_name(tokens.get(a.node)) for a in assignments):
            return  # worker-batch-calls merges it or reports why not (MWB101)
        for assignment in assignments:
            statement = tokens.get(assignment.node)
            if statement is not None and _bound_from_call(statement) is None:
                # (a call on an attribute receiver is reported as MWB135 where it is bound)
                self.review(statement, "MWB134", f"`{OLD_PARAMETER}` {_binding_kind(statement)}: not renamed, kept")
            for reference in assignment.references:
                used = tokens.get(reference.node)
                if used is not None:
                    self.review(
                        used, "MWB134", f"`{OLD_PARAMETER}` kept: not merged into a receiver (see where it is bound)"
                    )


def _bound_from_call(statement: cst.CSTNode | None) -> cst.Call | None:
    """The `get_model_worker_batch()` call of `statement`, when it is `name = <that call>`."""
    small = statement.body[0] if isinstance(statement, cst.SimpleStatementLine) else None
    return old_method_call(small.value) if isinstance(small, cst.Assign) else None


def _bound_from_call_on_name(statement: cst.CSTNode | None) -> bool:
    call = _bound_from_call(statement)
    return call is not None and isinstance(call.func, cst.Attribute) and isinstance(call.func.value, cst.Name)


def _has_old_method_call(node: cst.BaseExpression) -> bool:
    if isinstance(node, (cst.Tuple, cst.List)):
        return any(old_method_call(e.value) is not None for e in node.elements)
    return False


def _binding_kind(statement: cst.CSTNode) -> str:
    if isinstance(statement, cst.For):
        return "is a loop variable"
    if isinstance(statement, cst.With):
        return "is bound by `with ... as`"
    if isinstance(statement, cst.SimpleStatementLine):
        small = statement.body[0]
        if isinstance(small, cst.Assign):
            target = small.targets[0].target
            if isinstance(target, (cst.Tuple, cst.List)):
                return "is bound by tuple unpacking"
            return f"is bound from `{code(small.value)}`"
    return "is bound here"
