"""Drop `get_model_worker_batch()`: the batch itself is what workers take now.

    model_worker_batch = batch.get_model_worker_batch()        (deleted)
    self.worker.forward_batch_generation(model_worker_batch)   ->  ...(batch)

    model_worker_batch = batch.get_model_worker_batch(seq_lens_cpu_cache=E)
                                                               ->  batch.seq_lens_cpu_cache = E

Aliases (`mwb = model_worker_batch`) and an if/else binding the old object on one branch and the
batch on the other collapse to the batch. The old object was a snapshot (analysis.mutations):

    mwb = batch.get_model_worker_batch()
    batch.seq_lens = new          # certain change before a use: call kept, MWB101
    batch.prepare_for_decode()    # possible change (a call): rewritten, this line marked MWB141
    self.last = mwb               # the snapshot escapes: rewritten, this line marked MWB142
    worker.forward_batch_generation(mwb)

Also refused (MWB101) when the call takes arguments it never had.
"""

from __future__ import annotations

import libcst as cst
from libcst.codemod import CodemodContext
from libcst.metadata import ScopeProvider

from mwbmigrate.analysis.old_api import OLD_METHOD, OVERRIDE_ARGUMENT
from mwbmigrate.analysis.receivers import old_method_call, override_argument
from mwbmigrate.codemods._shared import PASS_LINE, bound_name, function_facts, receivers_with_own_method
from mwbmigrate.codemods.base import REPORTS, MigrationCodemod, NodeSet, tidy_block_start


def _accessor_only(test: cst.BaseExpression) -> bool:
    """A condition made of names, attributes and argument-free method calls: safe to stop evaluating."""

    class _Finder(cst.CSTVisitor):
        safe = True

        def visit_Call(self, node: cst.Call) -> None:
            if node.args:
                self.safe = False

        def visit_Await(self, node: cst.Await) -> None:
            self.safe = False

        def visit_NamedExpr(self, node: cst.NamedExpr) -> None:
            self.safe = False

    finder = _Finder()
    test.visit(finder)
    return finder.safe


class DropWorkerBatchCalls(MigrationCodemod):
    CODE = "MWB005"
    NAME = "worker-batch-calls"
    SUMMARY = "Delete `x = batch.get_model_worker_batch()` and read `batch` wherever `x` was read; overrides become `batch.seq_lens_cpu_cache = E`."
    TRIGGERS = (OLD_METHOD,)
    REVIEW_CODES = ("MWB101", "MWB141", "MWB142")
    REQUIRES = ("MWB006", *REPORTS)
    METADATA_DEPENDENCIES = (ScopeProvider,)

    def __init__(self, context: CodemodContext) -> None:
        super().__init__(context)
        self._renames: dict[cst.Name, str] = {}
        self._bindings: dict[cst.SimpleStatementLine, str] = {}  # binding statement -> receiver
        self._emptied = NodeSet()  # blocks this pass filled with `pass`
        self._function_depth = 0
        self._own_method_receivers: list[set[str]] = []
        # Reads of a name whose get_model_worker_batch() was kept: each line is marked.
        self._refused_uses: dict[cst.Name, str] = {}

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        self._function_depth += 1
        self._own_method_receivers.append(receivers_with_own_method(self, node))
        facts = function_facts(self, node)
        for statement, reason in facts.refusals:
            self.review(statement, "MWB101", f"`{OLD_METHOD}()` kept: {reason}")
            name = bound_name(statement)
            for assignment in facts.scope.assignments[name] if facts.scope else ():
                for reference in assignment.references:
                    if isinstance(reference.node, cst.Name):
                        self._refused_uses[reference.node] = name
        # Rewritten sites where the batch may change before a use of the snapshot, or the snapshot escapes.
        for statement, code, reason in facts.reviews:
            self.review(statement, code, reason)
        if facts.scope is None:
            return  # no aliases are found without the function's scope
        for name, receiver in facts.aliases.items():
            for assignment in facts.scope.assignments[name]:
                for reference in assignment.references:
                    if isinstance(reference.node, cst.Name):
                        self._renames[reference.node] = receiver
            for binding in facts.bindings[name]:
                self._bindings[binding.statement] = receiver

    def leave_FunctionDef(
        self, original_node: cst.FunctionDef, updated_node: cst.FunctionDef
    ) -> cst.BaseStatement | cst.FlattenSentinel[cst.BaseStatement] | cst.RemovalSentinel:
        self._function_depth -= 1
        self._own_method_receivers.pop()
        return updated_node

    def leave_Name(self, original_node: cst.Name, updated_node: cst.Name) -> cst.Name:
        refused = self._refused_uses.get(original_node)
        if refused is not None:
            self.review(
                original_node, "MWB101", f"`{refused}` still holds the old object: its `{OLD_METHOD}()` was kept"
            )
        receiver = self._renames.get(original_node)
        return updated_node.with_changes(value=receiver) if receiver else updated_node

    def leave_Call(self, original_node: cst.Call, updated_node: cst.Call) -> cst.BaseExpression:
        # An inline `f(batch.get_model_worker_batch())` evaluates to the batch at the same point.
        call = old_method_call(updated_node)
        if call is None or self._function_depth == 0:
            return updated_node
        receiver = cst.ensure_type(
            call.func, cst.Attribute
        ).value  # old_method_call: `<receiver>.get_model_worker_batch(...)`
        if isinstance(receiver, cst.Name) and receiver.value in self._own_method_receivers[-1]:
            return updated_node
        parent = self.parent(original_node)
        if isinstance(parent, cst.Assign) or original_node.args:
            if original_node.args and not isinstance(parent, cst.Assign):
                self.review(
                    original_node,
                    "MWB101",
                    f"inline `{OLD_METHOD}({OVERRIDE_ARGUMENT}=...)` kept: hoist the override by hand",
                )
            return updated_node
        return receiver

    def leave_SimpleStatementLine(
        self, original_node: cst.SimpleStatementLine, updated_node: cst.SimpleStatementLine
    ) -> cst.BaseStatement | cst.FlattenSentinel[cst.BaseStatement] | cst.RemovalSentinel:
        receiver = self._bindings.get(original_node)
        if receiver is None:
            return updated_node
        call = old_method_call(cst.ensure_type(updated_node.body[0], cst.Assign).value)  # a binding `name = ...`
        value = override_argument(call) if call is not None else None
        if value is None:
            return cst.RemoveFromParent()
        # The override becomes a one-shot field on the batch, consumed by the next ForwardBatch.init_new.
        target = cst.Attribute(value=cst.Name(receiver), attr=cst.Name(OVERRIDE_ARGUMENT))
        return updated_node.with_changes(body=[cst.Assign(targets=[cst.AssignTarget(target)], value=value)])

    def leave_IndentedBlock(self, original_node: cst.IndentedBlock, updated_node: cst.IndentedBlock) -> cst.BaseSuite:
        if updated_node.body or not original_node.body:
            if len(updated_node.body) != len(original_node.body):
                return updated_node.with_changes(body=tidy_block_start(original_node.body, updated_node.body))
            return updated_node
        filled = updated_node.with_changes(body=[PASS_LINE])
        self._emptied.add(filled)
        return filled

    def leave_If(
        self, original_node: cst.If, updated_node: cst.If
    ) -> cst.BaseStatement | cst.FlattenSentinel[cst.BaseStatement] | cst.RemovalSentinel:
        body_emptied = updated_node.body in self._emptied
        orelse = updated_node.orelse
        if not body_emptied or not _accessor_only(updated_node.test):
            return updated_node
        parent = self.parent(original_node)
        if not isinstance(parent, (cst.IndentedBlock, cst.Module)):
            return updated_node
        if orelse is None or (isinstance(orelse, cst.Else) and orelse.body in self._emptied):
            return cst.RemoveFromParent()
        return updated_node
