"""Mark what syntax alone cannot prove, before the renames erase which names held the old object.

Reports, leaving the code as it is:
    MWB103  an override write or `get_model_worker_batch(seq_lens_cpu_cache=...)` not followed by
            exactly one consuming call (`ForwardBatch.init_new` / `forward_batch_generation`)
    MWB104  a read of a value the old object derived (`capture_hidden_mode`, an overridden `seq_lens_cpu`)
    MWB105  a read of `extend_seq_lens`/`extend_prefix_lens`/`extend_logprob_start_lens`, which were None
            in decode/idle on the old object and are not gated on ScheduleBatch
    MWB106  a write to the former old object, which now mutates the scheduler's long-lived batch
    MWB107  `ScheduleBatch.seq_lens_cpu_cache` used as a persistent cache (now a one-shot override)
    MWB112  the former old object passed where a `ForwardBatch` is expected
    MWB114  an old-object-only field read on a parameter typed `Union[ScheduleBatch, ModelWorkerBatch]`
(MWB113, a public signature whose parameter is renamed, comes from parameter-renames.)
"""

from __future__ import annotations

import libcst as cst
import libcst.matchers as m
from libcst.metadata import PositionProvider, ScopeProvider

from mwbmigrate.analysis.old_api import OLD_METHOD, OLD_PARAMETER, ONE_SHOT_OVERRIDES, OVERRIDE_ARGUMENT
from mwbmigrate.analysis.receivers import all_params, old_method_call, override_argument
from mwbmigrate.codemods._shared import function_facts
from mwbmigrate.codemods.base import MigrationCodemod
from mwbmigrate.codemods.core_runtime import MoveCoreOntoRuntime

CONSUMING_CALLS = frozenset({"init_new", "forward_batch_generation", "forward_batch_embedding"})
# Callees whose parameter is a ForwardBatch; the old object used to be passed there (category I).
FORWARD_BATCH_CALLEES = frozenset({"sample", "compute_logprobs_only"})
DERIVED_FIELDS = frozenset({"capture_hidden_mode"})
# Old-object fields with no ScheduleBatch attribute of that name -> what ScheduleBatch calls it.
OLD_ONLY_FIELDS = {
    "extend_seq_lens": "extend_lens",
    "extend_prefix_lens": "prefix_lens",
    "lora_ids": "[req.lora_id for req in batch.reqs]",
    "dllm_block_offsets": "[req.dllm_block_offset for req in batch.reqs]",
}
UNGATED_FIELDS = frozenset({"extend_seq_lens", "extend_prefix_lens", "extend_logprob_start_lens"})


def _callee(call: cst.Call) -> str | None:
    func = call.func
    if isinstance(func, cst.Attribute):
        return func.attr.value
    if isinstance(func, cst.Name):
        return func.value
    return None


class _FunctionScan(cst.CSTVisitor):
    """One walk over a function body (not nested defs), knowing the statement around each node."""

    def __init__(self, function: cst.FunctionDef) -> None:
        self.function = function
        self.statements: list[cst.CSTNode] = []
        self.calls: list[tuple[cst.Call, cst.CSTNode]] = []
        self.writes: list[tuple[cst.Attribute, cst.CSTNode]] = []
        self.reads: list[tuple[cst.Attribute, cst.CSTNode]] = []
        self._targets: set[int] = set()

    def on_visit(self, node: cst.CSTNode) -> bool:
        # Pushed even when not descended into: on_leave runs for a skipped node too.
        if isinstance(node, (cst.SimpleStatementLine, cst.BaseCompoundStatement)) and node is not self.function:
            self.statements.append(node)
        if isinstance(node, cst.FunctionDef) and node is not self.function:
            return False
        return super().on_visit(node)

    def on_leave(self, original_node: cst.CSTNode) -> None:
        if isinstance(original_node, (cst.SimpleStatementLine, cst.BaseCompoundStatement)) and original_node is not self.function:
            self.statements.pop()
        super().on_leave(original_node)

    def visit_AssignTarget(self, node: cst.AssignTarget) -> None:
        self._targets.add(id(node.target))

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        self._targets.add(id(node.target))

    def visit_Call(self, node: cst.Call) -> None:
        if self.statements:  # calls in decorators and defaults sit outside the body
            self.calls.append((node, self.statements[-1]))

    def visit_Attribute(self, node: cst.Attribute) -> None:
        if not self.statements or not isinstance(node.value, cst.Name):
            return
        if id(node) in self._targets:
            self.writes.append((node, self.statements[-1]))
        else:
            self.reads.append((node, self.statements[-1]))


class ReportSemanticRisks(MigrationCodemod):
    CODE = "MWB010"
    NAME = "semantic-review"
    SUMMARY = "Mark sites whose meaning changes with the migration (one-shot overrides, derived and ungated reads, copy semantics)."
    METADATA_DEPENDENCIES = (ScopeProvider, PositionProvider)

    @classmethod
    def applies_to(cls, text, state):
        return OLD_PARAMETER in text or "ModelWorkerBatch" in text

    def _line(self, node: cst.CSTNode) -> int:
        return self.get_metadata(PositionProvider, node).start.line

    def _read_through_view(self, node: cst.FunctionDef) -> bool:
        """core-runtime makes `ForwardBatch.init_new` read derived and gated values through the view."""
        disabled = self.state.disabled_codemods
        runs = MoveCoreOntoRuntime.CODE not in disabled and MoveCoreOntoRuntime.NAME not in disabled
        return runs and self.enclosing_class() == "ForwardBatch" and node.name.value == "init_new"

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        facts = function_facts(self, node)
        accesses = facts.old_object_accesses()
        scan = _FunctionScan(node)
        node.visit(scan)
        consuming = sorted(self._line(call) for call, _ in scan.calls if _callee(call) in CONSUMING_CALLS)
        overridden = {
            name for name, bindings in facts.bindings.items()
            if any(b.call is not None and override_argument(b.call) is not None for b in bindings)
        }
        for call, statement in scan.calls:
            if old_method_call(call) is not None and override_argument(call) is not None:
                self._check_consumed(call, statement, consuming, f"`{OLD_METHOD}({OVERRIDE_ARGUMENT}=...)`")
                value = override_argument(call)
                if isinstance(value, cst.Attribute) and value.attr.value == OVERRIDE_ARGUMENT:
                    self.review(statement, "MWB107", "`seq_lens_cpu_cache` reused across forwards; in 0.5.13 it is a one-shot override consumed by init_new")
            if _callee(call) in FORWARD_BATCH_CALLEES and any(a.value in accesses for a in call.args):
                self.review(statement, "MWB112", f"the former old object is passed to `{_callee(call)}`, which expects a ForwardBatch")
        for target, statement in scan.writes:
            field = target.attr.value
            if target.value in accesses:
                if field in ONE_SHOT_OVERRIDES:
                    self._check_consumed(target, statement, consuming, f"`{field}` override")
                else:
                    self.review(statement, "MWB106", f"write to `{field}` now mutates the scheduler's ScheduleBatch (it hit a throw-away copy before)")
            elif field == OVERRIDE_ARGUMENT and facts.aliases:
                self.review(statement, "MWB107", "`ScheduleBatch.seq_lens_cpu_cache` written as a persistent cache; in 0.5.13 it is a one-shot override")
        either = self._params_typed_either(node)
        for attribute, statement in scan.reads:
            field = attribute.attr.value
            if attribute.value.value in either and field in OLD_ONLY_FIELDS:
                self.review(statement, "MWB114", f"`{field}` exists only on the old object, but `{attribute.value.value}` may be a ScheduleBatch (its field is `{OLD_ONLY_FIELDS[field]}`)")
                continue
            if attribute.value not in accesses or self._read_through_view(node):
                continue
            field = attribute.attr.value
            if field in DERIVED_FIELDS:
                self.review(statement, "MWB104", f"`{field}` was derived on the old object; on ScheduleBatch it is None unless just set: read forward_batch.{field} after init_new")
            elif field == "seq_lens_cpu" and attribute.value.value in overridden:
                self.review(statement, "MWB104", "`seq_lens_cpu` reflected the override on the old object; read forward_batch.seq_lens_cpu after init_new")
            elif field in UNGATED_FIELDS:
                self.review(statement, "MWB105", f"`{field}` was None in decode/idle on the old object; ScheduleBatch's field is not gated")

    def _params_typed_either(self, node: cst.FunctionDef) -> set[str]:
        """Parameters annotated `Union[..., ModelWorkerBatch, ...]` (or `A | ModelWorkerBatch`)."""
        names = set()
        for param in all_params(node.params):
            if param.annotation is None:
                continue
            annotation = param.annotation.annotation
            members: list[cst.BaseExpression] = []
            if isinstance(annotation, cst.Subscript) and m.matches(annotation.value, m.Name("Union") | m.Attribute(attr=m.Name("Union"))):
                members = [e.slice.value for e in annotation.slice if isinstance(e.slice, cst.Index)]
            elif isinstance(annotation, cst.BinaryOperation) and isinstance(annotation.operator, cst.BitOr):
                members = [annotation.left, annotation.right]
            if len(members) > 1 and any(self.names_old_class(member) for member in members):
                names.add(param.name.value)
        return names

    def _check_consumed(self, node: cst.CSTNode, statement: cst.CSTNode, consuming: list[int], what: str) -> None:
        line = self._line(node)
        after = [c for c in consuming if c >= line]
        if not after:
            self.review(statement, "MWB103", f"{what} is not consumed by a forward in this function; set it right before the consuming call")
        elif len(after) > 1:
            self.review(statement, "MWB103", f"{what} is consumed by the first of {len(after)} later forwards only; re-set it before each")
