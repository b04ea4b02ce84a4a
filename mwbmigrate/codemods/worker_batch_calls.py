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
import libcst.matchers as m
from libcst.codemod import CodemodContext
from libcst.metadata import ScopeProvider

from mwbmigrate.analysis.callee_summaries import HELPER_DEPTH, CalleeSummaries
from mwbmigrate.analysis.old_api import OLD_METHOD, OVERRIDE_ARGUMENT
from mwbmigrate.analysis.receivers import old_method_call, override_argument
from mwbmigrate.codemods._shared import bound_name, function_facts, receivers_with_own_method
from mwbmigrate.codemods.base import REPORTS, MigrationCodemod, NodeSet, deleted, is_deleted, settle_block


def _may_run_code(expression: cst.BaseExpression) -> bool:
    """Whether evaluating `expression` can run code of the program (a call, `await`, `yield`, `:=`)."""
    return bool(m.findall(expression, m.Call() | m.Await() | m.Yield() | m.NamedExpr() | m.Lambda()))


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
        self._summaries = CalleeSummaries(lambda node: self.get_metadata(ScopeProvider, node, None))

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
        why = self._inline_snapshot_outlives(original_node)
        if why is not None:
            self.review(
                original_node,
                "MWB142",
                f"the inline `{OLD_METHOD}()` {why}: it was a snapshot, now it is the live batch",
            )
        return receiver

    def _inline_snapshot_outlives(self, call: cst.Call) -> str | None:
        """None when the inline snapshot provably lives only as long as its statement: it is handed
        straight to a call that keeps nothing (analysis.callee_summaries), and nothing that the
        statement evaluates after it can change the batch. Else why not."""
        argument = self.parent(call)
        if isinstance(argument, cst.Element) and isinstance(self.parent(argument), (cst.Tuple, cst.List)):
            return (
                None
                if isinstance(self.parent(self.parent(argument) or argument), cst.Assign)
                else "is put in a container"
            )
        if not isinstance(argument, cst.Arg):
            return "is not handed straight to a forward"
        consumer = self.parent(argument)
        scope = self.get_metadata(ScopeProvider, call, None)
        if not isinstance(consumer, cst.Call) or scope is None:
            return "is not handed straight to a forward"
        kept = self._summaries.call_keeps(scope, consumer, argument, True, HELPER_DEPTH)
        if kept is not None:
            return f"is {kept}"
        holder = self.parent(consumer)
        if not isinstance(holder, (cst.Expr, cst.Return, cst.Assign, cst.AnnAssign)) or holder.value is not consumer:
            return "is in an expression whose value is not followed"
        later = consumer.args[consumer.args.index(argument) + 1 :]
        if any(_may_run_code(other.value) for other in later):
            return "is taken before a later argument that may change the batch"
        return None

    def leave_SimpleStatementLine(
        self, original_node: cst.SimpleStatementLine, updated_node: cst.SimpleStatementLine
    ) -> cst.BaseStatement | cst.FlattenSentinel[cst.BaseStatement] | cst.RemovalSentinel:
        receiver = self._bindings.get(original_node)
        if receiver is None:
            return updated_node
        call = old_method_call(cst.ensure_type(updated_node.body[0], cst.Assign).value)  # a binding `name = ...`
        value = override_argument(call) if call is not None else None
        if value is None:
            return deleted(updated_node)  # its comments, usually about the forward that follows, stay
        # The override becomes a one-shot field on the batch, consumed by the next ForwardBatch.init_new.
        target = cst.Attribute(value=cst.Name(receiver), attr=cst.Name(OVERRIDE_ARGUMENT))
        return updated_node.with_changes(body=[cst.Assign(targets=[cst.AssignTarget(target)], value=value)])

    def leave_IndentedBlock(self, original_node: cst.IndentedBlock, updated_node: cst.IndentedBlock) -> cst.BaseSuite:
        emptied = bool(original_node.body) and all(is_deleted(s) for s in updated_node.body)
        settled = settle_block(original_node, updated_node)
        if emptied:
            self._emptied.add(settled)  # a `pass`, under the deleted statements' comments if any
        return settled

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
