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

The same holds for `getattr(batch, "is_spec_v2"[, default])`, the name held in a string; the
keyword rename also applies on any receiver (`self.last_batch.filter_batch(...)`), unless the tree
defines a `filter_batch` of its own outside SGLang's modules (then only typed receivers are renamed).

Reported, the read kept (no field of the target means the same):
    MWB158  `can_run_dp_cuda_graph` / `can_run_dp_breakable_cuda_graph` (0.5.19: the batches
            carry `can_run_decode_cuda_graph` / `can_run_dp_prefill_cuda_graph` instead),
            `all_extend_in_batch` (0.5.16), ForwardBatch `num_token_non_padded_cpu` (0.5.20);
            also `hasattr(batch, "is_spec_v2")`, a `getattr` of a reported field, and a read of one
            of these fields on a value not known to be a batch (`b.is_spec_v2` in a comprehension
            over batches), unless the module defines or writes that name itself
"""

from __future__ import annotations

import re

import libcst as cst
import libcst.matchers as m
from libcst.codemod import CodemodContext

from mwbmigrate.analysis.receivers import all_params
from mwbmigrate.analysis.target_versions import RENAMED_KEYWORD_METHODS, removed_attributes, renamed_keywords
from mwbmigrate.analysis.worker_classes import worker_classes
from mwbmigrate.analysis.worker_kinds import WORKER_METHOD
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
# A parameter that holds batches: `list[ScheduleBatch]`, `Sequence[ScheduleBatch]`, `tuple[ScheduleBatch, ...]`.
_BATCH_LIST = re.compile(
    r"^(?:\w+\.)*(?:list|List|Sequence|Iterable|tuple|Tuple)\[\s*ScheduleBatch\s*(?:,\s*\.\.\.\s*)?\]$"
)
_FORWARD_BATCH = re.compile(r"\bForwardBatch\b")
_BATCH_CLASSES = ("ScheduleBatch", "ForwardBatch")


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


def _is_write(node: cst.Attribute, parent: cst.CSTNode | None) -> bool:
    return isinstance(parent, (cst.AssignTarget, cst.AugAssign, cst.Del)) or (
        isinstance(parent, cst.AnnAssign) and parent.target is node
    )


def _iterated(body: cst.BaseSuite, lists: set[str]) -> set[str]:
    """Names a `for` (a loop or a comprehension) binds from one of `lists`, bound nowhere else."""
    if not lists:
        return set()
    loops = [
        *m.findall(body, m.For(target=m.Name(), iter=m.Name())),
        *m.findall(body, m.CompFor(target=m.Name(), iter=m.Name())),
    ]
    found = {
        cst.ensure_type(loop.target, cst.Name).value  # type: ignore[attr-defined]
        for loop in loops
        if cst.ensure_type(loop.iter, cst.Name).value in lists  # type: ignore[attr-defined]
    }
    targets = [
        cst.ensure_type(loop.target, cst.Name).value  # type: ignore[attr-defined]
        for loop in loops
    ]
    bound = {t.target.value for t in m.findall(body, m.AssignTarget(target=m.Name()))}  # type: ignore[attr-defined]
    return {name for name in found if targets.count(name) == 1 and name not in bound}


class RewriteRemovedFields(MigrationCodemod):
    CODE = "MWB017"
    NAME = "removed-fields"
    SUMMARY = "`batch.is_spec_v2` -> `not batch.spec_algorithm.is_none()`, `filter_batch(chunked_req_to_exclude=)` -> `reqs_to_exclude=`, and reads of other fields the target removed reported."
    # A method whose keyword a release renamed: a `**mapping` it is called with may hold the old one.
    TRIGGERS = (SPEC_V2_FIELD, "chunked_req_to_exclude", *REPORTED_READS, *sorted(RENAMED_KEYWORD_METHODS))
    REVIEW_CODES = ("MWB158", "MWB189")
    SINCE = "0.5.14"  # the first release that removed one of them
    BOUNDARIES = ("0.5.16", "0.5.19", "0.5.20", "0.5.22")
    METADATA_DEPENDENCIES = ()

    def __init__(self, context: CodemodContext) -> None:
        super().__init__(context)
        self._removed = removed_attributes(self.state.target_version)
        # By class: what a `getattr` on a value of that class can no longer find.
        self._removed_from = {cls: removed_attributes(self.state.target_version, on=cls) for cls in _BATCH_CLASSES}
        self._renamed = renamed_keywords(self.state.target_version)
        self._frames: list[tuple[set[str], set[str]]] = []  # (ScheduleBatch names, ForwardBatch names)
        self._workers: set[str] = set()
        self._skip = False
        self._tests: set[int] = set()  # the `not ...is_none()` tests this pass built
        self._own_names: set[str] = set()  # names the module defines or writes itself

    def visit_Module(self, node: cst.Module) -> None:
        # SGLang's own modules are left alone: the rebase onto the target replaces them.
        self._skip = self.state.location.inside_sglang
        self._workers = set(
            worker_classes(node, self._skip, self.state.project_workers.of_module(self.state.location.path))
        )
        self._own_names = {
            *(f.name.value for f in m.findall(node, m.FunctionDef())),  # type: ignore[attr-defined]
            *(
                t.target.attr.value  # type: ignore[attr-defined]
                for t in m.findall(node, m.AssignTarget(target=m.Attribute()))
            ),
        }

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
        lists = {
            p.name.value
            for p in params
            if p.annotation and _BATCH_LIST.match(cst.Module([]).code_for_node(p.annotation.annotation))
        }
        batches |= _iterated(node.body, lists)
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
        if _is_write(original_node, parent):
            return updated_node  # a write: the field may be the fork's own again
        if field == SPEC_V2_FIELD:
            receiver = cst.ensure_type(original_node.value, cst.Name).value
            return self._spec_v2_test(receiver, parent)
        if field in REPORTED_READS:
            self.review(
                original_node,
                "MWB158",
                f"`{field}` read: SGLang {self._removed[field]} removed it, so this raises AttributeError on "
                f"{self.state.target_version}; in its place: {REPORTED_READS[field]}",
            )
        return updated_node

    def _spec_v2_test(self, receiver: str, parent: cst.CSTNode | None) -> cst.BaseExpression:
        test = cst.ensure_type(cst.parse_expression(SPEC_V2_TEST.format(receiver=receiver)), cst.UnaryOperation)
        # `not` binds looser than a comparison, an operator or a trailer: parenthesized there.
        if isinstance(parent, (cst.Comparison, cst.BinaryOperation, cst.Attribute, cst.Subscript, cst.Await)) or (
            isinstance(parent, cst.UnaryOperation) and not isinstance(parent.operator, cst.Not)
        ):
            test = test.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])
        self._tests.add(id(test))
        return test

    def visit_Attribute(self, node: cst.Attribute) -> None:
        """A reported field read on a value not known to be a batch: reported, never rewritten."""
        field = node.attr.value
        if self._skip or field not in self._removed or field not in (SPEC_V2_FIELD, *REPORTED_READS):
            return
        if field in self._own_names or self._holds(node.value, field):
            return
        if _is_write(node, self.parent(node)):
            return
        self.review(
            node,
            "MWB158",
            f"`{field}` read on a value not known to be a batch: if it is one, SGLang {self._removed[field]} "
            f"removed the field and this raises AttributeError on {self.state.target_version}; in its place: "
            f"{REPORTED_READS.get(field, '`not <batch>.spec_algorithm.is_none()`')}",
        )

    def _string_field(self, call: cst.Call) -> tuple[str, str, str] | None:
        """(`getattr`/`hasattr`, the field, the release that removed it) for such a call on a name
        that holds a batch, with the field a constant the target removed from that batch's class."""
        if not isinstance(call.func, cst.Name) or call.func.value not in ("getattr", "hasattr") or len(call.args) < 2:
            return None
        name = call.args[1].value
        if not isinstance(name, cst.SimpleString) or call.args[0].keyword or call.args[1].keyword:
            return None
        field = name.evaluated_value
        cls = self._class_held(call.args[0].value)
        if not isinstance(field, str) or cls is None or field not in self._removed_from[cls]:
            return None
        return call.func.value, field, self._removed_from[cls][field]

    def _class_held(self, receiver: cst.BaseExpression) -> str | None:
        """The batch class a name is known to hold here, None when none is."""
        if self._skip or not self._frames or not isinstance(receiver, cst.Name):
            return None
        batches, forwards = self._frames[-1]
        return "ScheduleBatch" if receiver.value in batches else "ForwardBatch" if receiver.value in forwards else None

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
        by_string = self._string_field(original_node)
        if by_string is not None:
            return self._by_string(original_node, updated_node, *by_string)
        func = original_node.func
        if not isinstance(func, cst.Attribute):
            return updated_node
        method = func.attr.value
        renames_anywhere = not self._skip and method not in self._own_names and method not in self.state.project_defines
        self._unseen_keywords(original_node, method, renames_anywhere or self._holds(func.value, method))
        if not self._holds(func.value, method) and not (
            renames_anywhere
            and any(a.keyword is not None and (method, a.keyword.value) in self._renamed for a in original_node.args)
        ):
            return updated_node
        args = [
            arg.with_changes(keyword=cst.Name(self._renamed[(method, arg.keyword.value)]))
            if arg.keyword is not None and (method, arg.keyword.value) in self._renamed
            else arg
            for arg in updated_node.args
        ]
        return updated_node.with_changes(args=args)

    def _unseen_keywords(self, call: cst.Call, method: str, on_the_batch: bool) -> None:
        """`batch.filter_batch(**options)` with a mapping whose keys this codemod cannot see: one of
        them may be a keyword the target renamed (MWB189)."""
        renamed = sorted((old, new) for (name, old), new in self._renamed.items() if name == method)
        if not renamed or not on_the_batch:
            return
        for arg in call.args:
            if arg.star == "**" and not isinstance(arg.value, cst.Dict):
                pairs = ", ".join(f"`{old}` to `{new}`" for old, new in renamed)
                self.review(
                    call,
                    "MWB189",
                    f"`{method}(**{cst.Module([]).code_for_node(arg.value).strip()})`: SGLang {self.state.target_version} renamed its "
                    f"keyword {pairs}, and a key of this mapping this rewrite cannot see may still name the old one",
                )
                return

    def _by_string(
        self, original: cst.Call, updated: cst.Call, builtin: str, field: str, since: str
    ) -> cst.BaseExpression:
        receiver = original.args[0].value
        if builtin == "getattr" and field == SPEC_V2_FIELD and isinstance(receiver, cst.Name):
            return self._spec_v2_test(receiver.value, self.parent(original))
        where = (
            "`not <batch>.spec_algorithm.is_none()`"
            if field == SPEC_V2_FIELD
            else REPORTED_READS.get(field, "no field: what set it must hand the value on some other way")
        )
        self.review(
            original,
            "MWB158",
            f"`{builtin}` of `{field}`: SGLang {since} removed the field, so on "
            f"{self.state.target_version} this gives {'False' if builtin == 'hasattr' else 'its default or raises'}; "
            f"in its place: {where}",
        )
        return updated
