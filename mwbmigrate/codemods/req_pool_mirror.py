"""Keep `ScheduleBatch.req_pool_indices_cpu` in step with the device tensor (upstream PR 28514).

In SGLang's own `schedule_batch.py` and in any builder of decode batches:

    def prepare_for_decode(self):          def prepare_for_decode(self):
        ...                          ->        ensure_req_pool_indices_cpu(self)
                                               ...
    def merge_batch(self, other):      ->  ensure_req_pool_indices_cpu(self); ensure_req_pool_indices_cpu(other) first
    filter_batch, all filtered out:    ->  clear_req_pool_metadata(self) before the early return
                                           (only with --clear-emptied-batches: no release does it)
    batch.req_pool_indices = torch.tensor([r.req_pool_idx for r in reqs], ..., device=device)
                                       ->  batch.req_pool_indices, batch.req_pool_indices_cpu = build_req_pool_indices(reqs, device)

The helpers come from `mwbmigrate.runtime`, or from the copy `--runtime vendor` puts into the tree
(`MigrationState.runtime_module`). Independent of the ModelWorkerBatch migration, selectable
on its own (`--select req-pool-mirror`), idempotent, and valid on 0.5.12.post1 through 0.5.23 trees.
Each statement it inserts or rewrites changes behaviour on purpose and is reported (note MWB184).
A builder whose device tensor is not a plain comprehension over the requests, or that builds it its
own way (a dtype other than int64, a pinned buffer, any other argument), is left alone (a note). A
`ScheduleBatch` without the mirror (0.5.12.post1) gets only the filter-to-empty clearing, and the
builders of a tree whose `schedule_batch.py` has none are left alone: a mirror restored or built
there would go stale, since nothing else in that class keeps one.
"""

from __future__ import annotations

import libcst as cst
import libcst.matchers as m
from libcst.codemod import CodemodContext
from libcst.codemod.visitors import AddImportsVisitor

from mwbmigrate.codemods.base import MigrationCodemod, MigrationState

ENSURE = "ensure_req_pool_indices_cpu"
CLEAR = "clear_req_pool_metadata"
BUILD = "build_req_pool_indices"
MIRROR = "req_pool_indices_cpu"


def _call_statement(function: str, argument: str) -> cst.SimpleStatementLine:
    return cst.SimpleStatementLine(
        body=[cst.Expr(cst.Call(func=cst.Name(function), args=[cst.Arg(cst.Name(argument))]))]
    )


def _calls(block: cst.BaseSuite, function: str) -> set[str]:
    """Names passed to `function(...)` as statements directly in `block`."""
    found = set()
    for statement in getattr(block, "body", ()):
        if m.matches(
            statement, m.SimpleStatementLine(body=[m.Expr(m.Call(func=m.Name(function), args=[m.Arg(m.Name())]))])
        ):
            found.add(statement.body[0].value.args[0].value.value)
    return found


_INT64 = ("torch.int64", "torch.long")


def _own_construction(call: cst.Call) -> str | None:
    """What in `torch.tensor([...], device=d, ...)` is not what `build_req_pool_indices` builds (an
    int64 tensor from the list on `device`), or None when nothing is."""
    for argument in call.args[1:]:
        keyword = argument.keyword.value if argument.keyword is not None else None
        if keyword == "device":
            continue
        code = cst.Module([]).code_for_node(argument.value)
        if keyword == "dtype" and code in _INT64:
            continue
        return f"`{keyword}={code}`" if keyword else f"`{code}`"
    return None


def _after_docstring(body: list[cst.BaseStatement]) -> int:
    if body and m.matches(body[0], m.SimpleStatementLine(body=[m.Expr(m.SimpleString() | m.ConcatenatedString())])):
        return 1
    return 0


class RepairRequestPoolMirror(MigrationCodemod):
    CODE = "MWB012"
    NAME = "req-pool-mirror"
    SUMMARY = "Restore/clear/build the `req_pool_indices_cpu` mirror in prepare_for_decode, merge_batch, filter_batch and batch builders."
    TRIGGERS = ("class ScheduleBatch(", "class ScheduleBatch:", "req_pool_idx for ")
    BODY_WORDS = ("req_pool_indices",)
    REQUIRED_WORDS = ("req_pool_indices",)
    REVIEW_CODES = ("MWB184",)
    METADATA_DEPENDENCIES = ()

    @classmethod
    def applies_to(cls, text: str, state: MigrationState) -> bool:
        return "req_pool_indices" in text and ("class ScheduleBatch" in text or "req_pool_idx for" in text)

    def __init__(self, context: CodemodContext) -> None:
        super().__init__(context)
        self._functions: list[cst.FunctionDef] = []
        self._sets_mirror: dict[int, bool] = {}  # id(function) -> whether it mentions the mirror
        self._batch_has_mirror = True

    def _need(self, helper: str) -> None:
        # mwbmigrate.runtime, or the tree's vendored copy under `--runtime vendor`.
        AddImportsVisitor.add_needed_import(self.context, self.state.runtime_module, helper)

    def _inserted(self, statement: cst.SimpleStatementLine, what: str) -> cst.SimpleStatementLine:
        reason = f"request-pool repair (upstream PR 28514): {what}"
        return cst.ensure_type(self.review_returned(statement, "MWB184", reason), cst.SimpleStatementLine)

    def _in_schedule_batch(self) -> bool:
        return self.enclosing_class() == "ScheduleBatch"

    def visit_ClassDef(self, node: cst.ClassDef) -> None:
        if node.name.value == "ScheduleBatch":
            # 0.5.12's batch has no mirror: a restored one would go stale, since its filter_batch
            # and merge_batch never update it. Clearing a batch filtered to empty still applies.
            self._batch_has_mirror = MIRROR in cst.Module([node]).code

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        self._functions.append(node)

    def _function_sets_mirror(self) -> bool:
        function = self._functions[-1]
        if id(function) not in self._sets_mirror:
            self._sets_mirror[id(function)] = MIRROR in cst.Module([function]).code
        return self._sets_mirror[id(function)]

    def leave_FunctionDef(
        self, original_node: cst.FunctionDef, updated_node: cst.FunctionDef
    ) -> cst.BaseStatement | cst.FlattenSentinel[cst.BaseStatement] | cst.RemovalSentinel:
        self._functions.pop()
        if not self._in_schedule_batch() or not isinstance(updated_node.body, cst.IndentedBlock):
            return updated_node
        if not self._batch_has_mirror:
            return updated_node
        name = updated_node.name.value
        params = [p.name.value for p in updated_node.params.params]
        if name == "prepare_for_decode" and params[:1] == ["self"]:
            targets = ["self"]
        elif name == "merge_batch" and len(params) >= 2:
            targets = params[:2]
        else:
            return updated_node
        body = list(updated_node.body.body)
        present = _calls(updated_node.body, ENSURE)
        missing = [t for t in targets if t not in present]
        if not missing:
            return updated_node
        self._need(ENSURE)
        at = _after_docstring(body)
        body[at:at] = [
            self._inserted(_call_statement(ENSURE, target), f"restores `{target}.{MIRROR}` when it is missing")
            for target in missing
        ]
        return updated_node.with_changes(body=updated_node.body.with_changes(body=body))

    def leave_If(
        self, original_node: cst.If, updated_node: cst.If
    ) -> cst.BaseStatement | cst.FlattenSentinel[cst.BaseStatement] | cst.RemovalSentinel:
        # filter_batch's "Filter out all requests" branch: `self.reqs = []` then `return`.
        if not self._in_schedule_batch() or not isinstance(updated_node.body, cst.IndentedBlock):
            return updated_node
        body = list(updated_node.body.body)
        empties = [
            i
            for i, s in enumerate(body)
            if m.matches(
                s,
                m.SimpleStatementLine(
                    body=[
                        m.Assign(
                            targets=[m.AssignTarget(m.Attribute(m.Name("self"), m.Name("reqs")))],
                            value=m.List(elements=[]),
                        )
                    ]
                ),
            )
        ]
        returns = [i for i, s in enumerate(body) if m.matches(s, m.SimpleStatementLine(body=[m.Return(value=None)]))]
        if not empties or not returns or returns[-1] < empties[0] or "self" in _calls(updated_node.body, CLEAR):
            return updated_node
        if not self.state.clear_emptied_batches:
            return updated_node  # the fuller repair of PR 28514: no release clears here ("stale tensors are left")
        self._need(CLEAR)
        cleared = "clears the request-pool tensors and mirror of the emptied batch (`--clear-emptied-batches`)"
        body.insert(returns[-1], self._inserted(_call_statement(CLEAR, "self"), cleared))
        return updated_node.with_changes(body=updated_node.body.with_changes(body=body))

    def leave_SimpleStatementLine(
        self, original_node: cst.SimpleStatementLine, updated_node: cst.SimpleStatementLine
    ) -> cst.BaseStatement | cst.FlattenSentinel[cst.BaseStatement] | cst.RemovalSentinel:
        if not self._functions or self._in_schedule_batch():
            return updated_node
        pattern = m.Assign(
            targets=[m.AssignTarget(m.Attribute(value=m.Name(), attr=m.Name("req_pool_indices")))],
            value=m.Call(func=m.Attribute(m.Name("torch"), m.Name("tensor"))),
        )
        if len(updated_node.body) != 1 or not m.matches(updated_node.body[0], pattern):
            return updated_node
        # `<owner>.req_pool_indices = torch.tensor(...)`, as `pattern` matched
        assign = cst.ensure_type(updated_node.body[0], cst.Assign)
        call = cst.ensure_type(assign.value, cst.Call)
        source = call.args[0].value if call.args else None
        if not (
            isinstance(source, cst.ListComp)
            and isinstance(source.elt, cst.Attribute)
            and m.matches(source.elt, m.Attribute(attr=m.Name("req_pool_idx")))
            and isinstance(source.for_in.target, cst.Name)
            and source.for_in.inner_for_in is None
            and not source.for_in.ifs
            and source.elt.value.deep_equals(source.for_in.target)
        ):
            return updated_node
        device = next((a.value for a in call.args if a.keyword is not None and a.keyword.value == "device"), None)
        if device is None or self._function_sets_mirror() or self.state.request_mirror is False:
            return updated_node
        own = _own_construction(call)
        if own is not None:
            # `build_req_pool_indices` builds int64 tensors from the list alone: a dtype, a pinned
            # buffer or another argument of the fork's own is its business (a kernel may check it).
            return cst.ensure_type(
                self.review_returned(
                    updated_node,
                    "MWB184",
                    f"request-pool repair (upstream PR 28514) left alone: this builder constructs its own "
                    f"tensor ({own}), so `{MIRROR}` is not built here; build it the same way if a forward reads it",
                ),
                cst.SimpleStatementLine,
            )
        owner = cst.ensure_type(assign.targets[0].target, cst.Attribute).value
        self._need(BUILD)
        targets = cst.Tuple(
            elements=[
                cst.Element(cst.Attribute(owner, cst.Name("req_pool_indices"))),
                cst.Element(cst.Attribute(owner, cst.Name("req_pool_indices_cpu"))),
            ],
            lpar=[],
            rpar=[],
        )
        value = cst.Call(func=cst.Name(BUILD), args=[cst.Arg(source.for_in.iter), cst.Arg(device)])
        built = updated_node.with_changes(body=[cst.Assign(targets=[cst.AssignTarget(targets)], value=value)])
        return self._inserted(built, f"also builds `{MIRROR}`, which this builder left unset")
