"""Fields and keywords the target removed from the batches, on names known to hold one.

    if batch.is_spec_v2:                        ->  if not batch.spec_algorithm.is_none():
    batch.filter_batch(chunked_req_to_exclude=r)  ->  batch.filter_batch(reqs_to_exclude=r)

`is_spec_v2` (gone in 0.5.14) was `spec_algorithm.supports_spec_v2()` in 0.5.13, and from 0.5.14
every speculative algorithm runs the v2 worker, which is why SGLang's own code tests
`not batch.spec_algorithm.is_none()` there. `filter_batch`'s `chunked_req_to_exclude` became
`reqs_to_exclude` in 0.5.22 with the same body (a request or a list of them left out).
The names come from `target_versions.removed_attributes` / `renamed_keywords`; a name holds a
`ScheduleBatch` when it is annotated so, or it is the batch parameter of a worker override
(`analysis.worker_classes`), and a `ForwardBatch` when annotated so or bound from `init_new`.

Reported, the read kept (no field of the target means the same):
    MWB158  `can_run_dp_cuda_graph` / `can_run_dp_breakable_cuda_graph` (0.5.19: the batches
            carry `can_run_decode_cuda_graph` / `can_run_dp_prefill_cuda_graph` instead),
            `all_extend_in_batch` (0.5.16), ForwardBatch `num_token_non_padded_cpu` (0.5.20)
"""

from __future__ import annotations

import re

import libcst as cst
import libcst.matchers as m
from libcst.codemod import CodemodContext

from mwbmigrate.analysis.receivers import all_params
from mwbmigrate.analysis.target_versions import removed_attributes, renamed_keywords
from mwbmigrate.analysis.worker_classes import WORKER_METHOD, worker_classes
from mwbmigrate.codemods.base import MigrationCodemod

SPEC_V2_FIELD = "is_spec_v2"
# The target's own test for what `is_spec_v2` said (SGLang 0.5.14's scheduler).
SPEC_V2_TEST = "not {receiver}.spec_algorithm.is_none()"
# Removed reads reported, not rewritten: what the target has in their place.
REPORTED_READS: dict[str, str] = {
    "can_run_dp_cuda_graph": "`can_run_decode_cuda_graph` (decode) / `can_run_dp_prefill_cuda_graph` (DP prefill)",
    "can_run_dp_breakable_cuda_graph": "`can_run_dp_prefill_cuda_graph`",
    "all_extend_in_batch": "no field: test the DP ranks' forward modes where the batch is built",
    "num_token_non_padded_cpu": "no CPU field: `num_token_non_padded` (a device tensor)",
}
FORWARD_BATCH_ONLY = frozenset({"num_token_non_padded_cpu"})
_SCHEDULE_BATCH = re.compile(r"\bScheduleBatch\b")
_FORWARD_BATCH = re.compile(r"\bForwardBatch\b")


class _Bindings(cst.CSTVisitor):
    """`x = ForwardBatch.init_new(...)` in a body, nested functions and classes left out."""

    def __init__(self) -> None:
        self.forward_batches: set[str] = set()

    def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
        return False

    def visit_ClassDef(self, node: cst.ClassDef) -> bool:
        return False

    def visit_Assign(self, node: cst.Assign) -> None:
        if m.matches(node.value, m.Call(func=m.Attribute(value=m.Name("ForwardBatch"), attr=m.Name("init_new")))):
            self.forward_batches.update(t.target.value for t in node.targets if isinstance(t.target, cst.Name))


class RewriteRemovedFields(MigrationCodemod):
    CODE = "MWB017"
    NAME = "removed-fields"
    SUMMARY = "`batch.is_spec_v2` -> `not batch.spec_algorithm.is_none()`, `filter_batch(chunked_req_to_exclude=)` -> `reqs_to_exclude=`, and reads of other fields the target removed reported."
    TRIGGERS = (SPEC_V2_FIELD, "chunked_req_to_exclude", *REPORTED_READS)
    REVIEW_CODES = ("MWB158",)
    SINCE = "0.5.14"  # the first release that removed one of them
    BOUNDARIES = ("0.5.16", "0.5.19", "0.5.20", "0.5.22")
    METADATA_DEPENDENCIES = ()

    def __init__(self, context: CodemodContext) -> None:
        super().__init__(context)
        self._removed = removed_attributes(self.state.target_version)
        self._renamed = renamed_keywords(self.state.target_version)
        self._frames: list[tuple[set[str], set[str]]] = []  # (ScheduleBatch names, ForwardBatch names)
        self._workers: set[str] = set()
        self._skip = False
        self._tests: set[int] = set()  # the `not ...is_none()` tests this pass built

    def visit_Module(self, node: cst.Module) -> None:
        # SGLang's own modules are left alone: the rebase onto the target replaces them.
        self._skip = self.state.location.inside_sglang
        self._workers = set(worker_classes(node, self._skip))

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        batches: set[str] = set()
        forwards: set[str] = set()
        params = all_params(node.params)
        for param in params:
            annotation = cst.Module([]).code_for_node(param.annotation.annotation) if param.annotation else ""
            if _SCHEDULE_BATCH.search(annotation):
                batches.add(param.name.value)
            elif _FORWARD_BATCH.search(annotation):
                forwards.add(param.name.value)
        if node.name.value == WORKER_METHOD and self.enclosing_class() in self._workers and len(params) > 1:
            batches.add(params[1].name.value)
        scan = _Bindings()
        node.body.visit(scan)
        self._frames.append((batches, forwards | scan.forward_batches))

    def leave_FunctionDef(self, original_node: cst.FunctionDef, updated_node: cst.FunctionDef) -> cst.FunctionDef:
        self._frames.pop()
        return updated_node

    def _holds(self, receiver: cst.BaseExpression, field: str) -> bool:
        if self._skip or not self._frames or not isinstance(receiver, cst.Name):
            return False
        batches, forwards = self._frames[-1]
        if field in FORWARD_BATCH_ONLY:
            return receiver.value in forwards
        return receiver.value in batches or receiver.value in forwards

    def leave_Attribute(self, original_node: cst.Attribute, updated_node: cst.Attribute) -> cst.BaseExpression:
        field = original_node.attr.value
        if field not in self._removed or not self._holds(original_node.value, field):
            return updated_node
        parent = self.parent(original_node)
        if isinstance(parent, (cst.AssignTarget, cst.AugAssign, cst.Del)) or (
            isinstance(parent, cst.AnnAssign) and parent.target is original_node
        ):
            return updated_node  # a write: the field may be the fork's own again
        if field == SPEC_V2_FIELD:
            receiver = cst.ensure_type(original_node.value, cst.Name).value
            test = cst.ensure_type(cst.parse_expression(SPEC_V2_TEST.format(receiver=receiver)), cst.UnaryOperation)
            # `not` binds looser than a comparison, an operator or a trailer: parenthesized there.
            if isinstance(parent, (cst.Comparison, cst.BinaryOperation, cst.Attribute, cst.Subscript, cst.Await)) or (
                isinstance(parent, cst.UnaryOperation) and not isinstance(parent.operator, cst.Not)
            ):
                test = test.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])
            self._tests.add(id(test))
            return test
        if field in REPORTED_READS:
            self.review(
                original_node,
                "MWB158",
                f"`{field}` read: SGLang {self._removed[field]} removed it, so this raises AttributeError on "
                f"{self.state.target_version}; in its place: {REPORTED_READS[field]}",
            )
        return updated_node

    def leave_UnaryOperation(
        self, original_node: cst.UnaryOperation, updated_node: cst.UnaryOperation
    ) -> cst.BaseExpression:
        # `not batch.is_spec_v2` -> `batch.spec_algorithm.is_none()`, not `not not ...`.
        inner = updated_node.expression
        if isinstance(updated_node.operator, cst.Not) and id(inner) in self._tests:
            assert isinstance(inner, cst.UnaryOperation)
            return inner.expression.with_changes(lpar=updated_node.lpar, rpar=updated_node.rpar)
        return updated_node

    def leave_Call(self, original_node: cst.Call, updated_node: cst.Call) -> cst.BaseExpression:
        func = original_node.func
        if not isinstance(func, cst.Attribute) or not self._holds(func.value, func.attr.value):
            return updated_node
        method = func.attr.value
        args = [
            arg.with_changes(keyword=cst.Name(self._renamed[(method, arg.keyword.value)]))
            if arg.keyword is not None and (method, arg.keyword.value) in self._renamed
            else arg
            for arg in updated_node.args
        ]
        return updated_node.with_changes(args=args)
