"""Whether the batch can change between `get_model_worker_batch()` and a use of its result.

`get_model_worker_batch()` returned a per-forward snapshot: a new object whose fields were the
batch's at the time of the call. Reading `batch` where the snapshot was read is the same only
while nothing can change the batch in between, and only while the snapshot never outlives the
function. This module decides that, for one receiver at a time, with a small abstract
interpretation over the function's statements (branches joined, loops iterated to a fixed point,
every point of a `try` body reaching its handlers, `return`/`break`/`continue`/`raise` ending their
path):

    mwb = batch.get_model_worker_batch()
    batch.seq_lens = new                # a write: the worker now sees `new`         (definite)
    batch.prepare_for_decode()          # a method of the batch: may change anything (possible)
    helper(batch)                       # the batch handed to a call                 (possible)
    worker.forward_batch_generation(mwb)
    self.last = mwb                     # the snapshot escapes: later changes show through it

What is *not* a change: an in-place write to an object the snapshot shared with the batch
(`batch.seq_lens[0] = 5`, `batch.seq_lens.add_(1)`): the old object held the same list or tensor,
so both saw it. The exceptions are the objects the old method read *into* derived fields when it
was called (`reqs` into `lora_ids`, `dllm_block_offsets` and the grammars; `spec_info` into
`capture_hidden_mode`; `sampling_info`, whose grammars it set): a change inside those is one.

Known limits: a call that reaches the batch through another reference (`self.running_batch`)
without being handed it is not seen; neither is a callee that changes the snapshot and a later
read of the batch (that is a write to the old object, MWB106's side).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import TypeGuard

import libcst as cst
import libcst.matchers as m
from libcst.metadata import Assignment, ClassScope, Scope

from mwbmigrate.analysis.callee_summaries import (
    CONSUMERS,
    HELPER_DEPTH,
    PURE_BUILTINS as KEEPS_NOTHING_BUILTINS,
    CalleeSummaries,
)
from mwbmigrate.analysis.calls import callee_name
from mwbmigrate.analysis.old_api import (
    OLD_METHOD,
    OLD_OBJECT_FIELDS,
    ONE_SHOT_OVERRIDES,
)
from mwbmigrate.analysis.override_sites import CONSUMING_CALLS

# Batch attributes whose *contents* the old method read at call time into derived fields (see above),
# and what of them it read: a write of anything else in them, or deeper, changed both alike.
DEEP_READS = {
    "reqs": frozenset({"lora_id", "dllm_block_offset", "grammar"}),  # of each request; the list too
    "spec_info": frozenset({"capture_hidden_mode"}),
    "sampling_info": frozenset({"grammars"}),
}
DEEP_ROOTS = frozenset(DEEP_READS)
# Of these, the one whose items (a subscript write) the old method read.
DEEP_SEQUENCES = frozenset({"reqs"})
# Old field -> the batch attributes (and `root.*` contents) its snapshot value came from, where that
# is not just the attribute of the same name.
SNAPSHOT_SOURCES: dict[str, frozenset[str]] = {
    "extend_seq_lens": frozenset({"extend_lens", "forward_mode"}),
    "extend_prefix_lens": frozenset({"prefix_lens", "forward_mode"}),
    "extend_logprob_start_lens": frozenset({"extend_logprob_start_lens", "forward_mode"}),
    "capture_hidden_mode": frozenset({"capture_hidden_mode", "return_hidden_states", "spec_info", "spec_info.*"}),
    "lora_ids": frozenset({"reqs", "reqs.*"}),
    "dllm_block_offsets": frozenset({"reqs", "reqs.*"}),
    "sampling_info": frozenset({"sampling_info", "has_grammar", "reqs"}),
}
ANY_FIELD = "*"
REBOUND = "<rebound>"  # the receiver name itself bound to something else
# What a use of the whole snapshot (handed to a call, ...) observes: every old field's sources and
# the contents of the deep roots. A consuming call (init_new, forward_batch_generation) in 0.5.13
# also reads the one-shot overrides off the batch.
WHOLE_OBJECT = frozenset(
    source for name in OLD_OBJECT_FIELDS for source in SNAPSHOT_SOURCES.get(name, frozenset({name}))
) | {f"{root}.*" for root in DEEP_ROOTS}
CONSUMED_WHOLE = WHOLE_OBJECT | frozenset(ONE_SHOT_OVERRIDES)
# Builtins that change none of their arguments: those that keep nothing, and those whose result
# holds their argument (an iterator over it), which may keep it but never change it.
PURE_BUILTINS = KEEPS_NOTHING_BUILTINS | {
    "enumerate",
    "zip",
    "range",
    "list",
    "tuple",
    "set",
    "frozenset",
    "dict",
    "iter",
    "reversed",
}
# Methods that keep their argument in a container or hand it to another thread.
STORING_METHODS = frozenset(
    {
        "append",
        "appendleft",
        "extend",
        "extendleft",
        "insert",
        "add",
        "put",
        "put_nowait",
        "push",
        "setdefault",
        "update",
        "send",
        "submit",
        "__setitem__",
    }
)
# Builtins whose result holds the very items of their argument: `for i, req in enumerate(batch.reqs)`.
_ITERATING_BUILTINS = frozenset({"enumerate", "zip", "list", "tuple", "iter", "reversed", "sorted", "filter"})
_TRANSPARENT = (cst.IfExp, cst.BooleanOperation)  # the value of the expression may be the name itself
_DISPLAYS = (
    cst.Tuple,
    cst.List,
    cst.Set,
    cst.Dict,
    cst.Element,
    cst.DictElement,
    cst.StarredElement,
    cst.StarredDictElement,
    cst.ListComp,
    cst.SetComp,
    cst.DictComp,
)


@dataclass(frozen=True)
class Mutation:
    """A point where the batch may change: `effects` are attributes, `root.*` contents, ANY_FIELD, REBOUND.

    Equal when found again at the same statement: loops are iterated to a fixed point."""

    statement: cst.CSTNode = field(compare=False, hash=False)
    description: str  # one line, e.g. "`batch.seq_lens` is written"
    effects: frozenset[str]
    definite: bool
    at: int = 0  # id() of the statement

    def __post_init__(self) -> None:
        object.__setattr__(self, "at", id(self.statement))


@dataclass(frozen=True)
class Hazard:
    name: str  # the name that held the snapshot
    use: cst.CSTNode  # statement of the use
    mutation: Mutation
    read: str | None  # `attr` when the use reads `name.attr`, else None


@dataclass(frozen=True)
class Escape:
    name: str
    statement: cst.CSTNode
    how: str  # one line, e.g. "stored in an attribute"


@dataclass
class SnapshotReport:
    hazards: list[Hazard] = field(default_factory=list)
    escapes: list[Escape] = field(default_factory=list)
    deleted: list[tuple[str, cst.CSTNode]] = field(default_factory=list)  # `del name` of a snapshot name


def _root(expr: cst.BaseExpression) -> tuple[str | None, str | None, int]:
    """`batch.reqs[0].lora_id` -> ("batch", "reqs", 3): the root name, the attribute right after it
    (None when a subscript comes first), and how many attribute/subscript steps lead there. A call
    in the chain ends it: the root is then None."""
    chain: list[cst.BaseExpression] = []
    while isinstance(expr, (cst.Attribute, cst.Subscript)):
        chain.append(expr)
        expr = expr.value
    if not isinstance(expr, cst.Name):
        return None, None, len(chain)
    first = chain[-1].attr.value if chain and isinstance(chain[-1], cst.Attribute) else None
    return expr.value, first, len(chain)


def _names_in(node: cst.CSTNode) -> set[str]:
    class _Names(cst.CSTVisitor):
        def __init__(self) -> None:
            self.found: set[str] = set()

        def visit_Name(self, name: cst.Name) -> None:
            self.found.add(name.value)

    finder = _Names()
    node.visit(finder)
    return finder.found


def _transparent_names(expr: cst.BaseExpression) -> tuple[set[str], bool]:
    """Names the value of `expr` may be (directly, or through `a if c else b` / `a or b`), and
    whether one sits in a container display."""
    if isinstance(expr, cst.Name):
        return {expr.value}, False
    if isinstance(expr, cst.IfExp):
        a, ca = _transparent_names(expr.body)
        b, cb = _transparent_names(expr.orelse)
        return a | b, ca or cb
    if isinstance(expr, cst.BooleanOperation):
        a, ca = _transparent_names(expr.left)
        b, cb = _transparent_names(expr.right)
        return a | b, ca or cb
    if isinstance(expr, (cst.Tuple, cst.List, cst.Set)):
        names: set[str] = set()
        for element in expr.elements:
            names |= _transparent_names(element.value)[0]
        return names, bool(names)
    if isinstance(expr, cst.Dict):
        names = set()
        for entry in expr.elements:
            if isinstance(entry, cst.DictElement):
                names |= _transparent_names(entry.value)[0]
        return names, bool(names)
    return set(), False


def _bound_names(target: cst.BaseExpression) -> list[cst.Name]:
    if isinstance(target, cst.Name):
        return [target]
    if isinstance(target, (cst.Tuple, cst.List)):
        return [name for element in target.elements for name in _bound_names(element.value)]
    if isinstance(target, cst.StarredElement):
        return _bound_names(target.value)
    return []


def _binding_pairs(body: cst.CSTNode) -> list[tuple[list[cst.Name], cst.BaseExpression]]:
    """(names bound, value) for every binding form whose value is an expression, nested defs excluded."""

    class _Bindings(cst.CSTVisitor):
        def __init__(self) -> None:
            self.pairs: list[tuple[list[cst.Name], cst.BaseExpression]] = []

        def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
            return False

        def visit_Lambda(self, node: cst.Lambda) -> bool:
            return False

        def visit_ClassDef(self, node: cst.ClassDef) -> bool:
            return False

        def visit_Assign(self, node: cst.Assign) -> None:
            for target in node.targets:
                self.pairs.append((_bound_names(target.target), node.value))

        def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
            if node.value is not None:
                self.pairs.append((_bound_names(node.target), node.value))

        def visit_AugAssign(self, node: cst.AugAssign) -> None:
            self.pairs.append((_bound_names(node.target), node.value))

        def visit_NamedExpr(self, node: cst.NamedExpr) -> None:
            self.pairs.append((_bound_names(node.target), node.value))

        def visit_For(self, node: cst.For) -> None:
            self.pairs.append((_bound_names(node.target), node.iter))

        def visit_CompFor(self, node: cst.CompFor) -> None:
            self.pairs.append((_bound_names(node.target), node.iter))

        def visit_WithItem(self, node: cst.WithItem) -> None:
            if node.asname is not None:
                self.pairs.append((_bound_names(node.asname.name), node.item))

    finder = _Bindings()
    body.visit(finder)
    return finder.pairs


class _Holders:
    """Names of one function that may reach the live batch, found once (flow-insensitively).

    `live`: the receiver and names bound to it (`b = batch`, `b = batch if c else x`, `for b in
    [batch]`); `deep`: names bound from inside a deep root (`reqs = batch.reqs`, `for req in
    batch.reqs`), with the roots they reach. Names holding the snapshot are never either: a write
    through them changes the old object (MWB106), not the batch.
    """

    def __init__(self, body: cst.CSTNode, receiver: str, snapshot_names: set[str]) -> None:
        pairs = _binding_pairs(body)
        self.live: set[str] = {receiver}
        self.deep: dict[str, set[str]] = {}
        changed = True
        while changed:
            changed = False
            for names, value in pairs:
                transparent, _ = _transparent_names(value)
                roots = self.deep_roots_in(value)
                for name in names:
                    if name.value in snapshot_names or name.value == receiver:
                        continue
                    if transparent & self.live and name.value not in self.live:
                        self.live.add(name.value)
                        changed = True
                    if roots and not roots <= self.deep.get(name.value, set()):
                        self.deep.setdefault(name.value, set()).update(roots)
                        changed = True

    def deep_roots_in(self, expr: cst.BaseExpression) -> set[str]:
        """Deep roots whose object (or an item of it) the value of `expr` may be: `batch.reqs`,
        `batch.reqs[0]`, a deep alias, and these through `x if c else y`, displays and
        `enumerate`/`zip`/`list`/... An attribute further in (`req.time_stats`) is none."""
        while isinstance(expr, cst.Subscript):
            expr = expr.value
        if isinstance(expr, cst.Attribute):
            inner = expr.value
            if isinstance(inner, cst.Name) and inner.value in self.live and expr.attr.value in DEEP_ROOTS:
                return {expr.attr.value}
            return set()
        if isinstance(expr, cst.Name):
            return set(self.deep.get(expr.value, ()))
        if isinstance(expr, cst.IfExp):
            return self.deep_roots_in(expr.body) | self.deep_roots_in(expr.orelse)
        if isinstance(expr, cst.BooleanOperation):
            return self.deep_roots_in(expr.left) | self.deep_roots_in(expr.right)
        if isinstance(expr, (cst.Tuple, cst.List, cst.Set)):
            return {root for element in expr.elements for root in self.deep_roots_in(element.value)}
        if isinstance(expr, cst.Call) and isinstance(expr.func, cst.Name) and expr.func.value in _ITERATING_BUILTINS:
            return {root for argument in expr.args for root in self.deep_roots_in(argument.value)}
        return set()


class _UnitScan(cst.CSTVisitor):
    """The events of one unit (a simple statement line, or a compound statement's header): uses of
    the snapshot names, calls that may change the batch, writes to it, bindings. Nested function and
    class bodies, lambdas and generator expressions run later: only what they capture is noted."""

    def __init__(self, flow: _SnapshotFlow, statement: cst.CSTNode) -> None:
        self.flow = flow
        self.statement = statement
        self.stack: list[cst.CSTNode] = []
        self.calls: list[Mutation] = []  # may run before a use in the same unit
        self.writes: list[Mutation] = []  # assignment targets: after every use of the unit
        self.uses: list[tuple[str, frozenset[str], str | None]] = []  # (name, observed, attribute read)
        self.fresh: list[str] = []  # snapshot names bound from the old call here
        self.unbound: list[str] = []  # snapshot names bound to anything else here
        self.aliases: list[tuple[str, str]] = []  # (name, snapshot name it is bound to)
        self._targets: set[int] = set()

    # -- traversal -----------------------------------------------------------------------------
    def on_visit(self, node: cst.CSTNode) -> bool:
        self.stack.append(node)  # on_leave pops it, children visited or not
        flow = self.flow
        if node in flow.rebinding_nodes:
            self.writes.append(
                flow.mutation(self.statement, f"`{flow.receiver}` is rebound", {ANY_FIELD, REBOUND}, True)
            )
        if isinstance(node, (cst.FunctionDef, cst.ClassDef)):
            # A nested def: its decorators run now, its body later; a class body runs now, but
            # what it could do to the batch is left to its captures.
            self._captured(node)
            for decorator in node.decorators:
                decorator.visit(self)
            return False
        if isinstance(node, cst.Lambda) or (
            isinstance(node, cst.GeneratorExp)
            and not isinstance(self.stack[-2] if len(self.stack) > 1 else None, cst.Arg)
        ):
            self._captured(node)
            return False
        super().on_visit(node)
        return True

    def on_leave(self, original_node: cst.CSTNode) -> None:
        super().on_leave(original_node)
        self.stack.pop()

    def _captured(self, node: cst.CSTNode) -> None:
        names = _names_in(node)
        for name in sorted(names & self.flow.snapshot_names):
            self.flow.escape(name, self.statement, "captured by a lambda, nested function or generator")

    # -- writes --------------------------------------------------------------------------------
    def target(self, target: cst.BaseExpression, fresh_from_call: bool, value: cst.BaseExpression | None) -> None:
        """An assignment target: bindings of names, writes through attributes and subscripts."""
        for name in _bound_names(target):
            self._targets.add(id(name))
            if name.value in self.flow.snapshot_names:
                if fresh_from_call and target is name:
                    self.fresh.append(name.value)
                elif not (target is name and isinstance(value, cst.Name) and value.value in self.flow.snapshot_names):
                    self.unbound.append(name.value)
                else:
                    self.aliases.append((name.value, value.value))
        if isinstance(target, (cst.Tuple, cst.List)):
            for element in target.elements:
                self.target(element.value, False, None)
        elif isinstance(target, cst.StarredElement):
            self.target(target.value, False, None)
        elif isinstance(target, (cst.Attribute, cst.Subscript)):
            self._targets.add(id(target))
            mutation = self.flow.write_through(target, self.statement)
            if mutation is not None:
                self.writes.append(mutation)

    def visit_Assign(self, node: cst.Assign) -> None:
        fresh = self.flow.is_old_call(node.value)
        for target in node.targets:
            self.target(target.target, fresh, node.value)

    def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
        self.target(node.target, False, None)

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        self.target(node.target, False, None)

    def visit_NamedExpr(self, node: cst.NamedExpr) -> None:
        self.target(node.target, False, None)

    def visit_Del(self, node: cst.Del) -> None:
        for name in _bound_names(node.target):
            self._targets.add(id(name))
            if name.value == self.flow.receiver:
                self.writes.append(
                    self.flow.mutation(self.statement, f"`{self.flow.receiver}` is deleted", {ANY_FIELD, REBOUND}, True)
                )
            elif name.value in self.flow.snapshot_names:
                self.flow.report.deleted.append((name.value, self.statement))
                self.unbound.append(name.value)
        targets = (
            [element.value for element in node.target.elements]
            if isinstance(node.target, (cst.Tuple, cst.List))
            else [node.target]
        )
        for target in targets:
            if isinstance(target, (cst.Attribute, cst.Subscript)):
                self._targets.add(id(target))
                mutation = self.flow.write_through(target, self.statement, verb="deleted")
                if mutation is not None:
                    self.writes.append(mutation)

    # -- calls ---------------------------------------------------------------------------------
    def visit_Call(self, node: cst.Call) -> None:
        mutation = self.flow.call_mutation(node, self.statement)
        if mutation is not None:
            self.calls.append(mutation)

    def visit_Yield(self, node: cst.Yield) -> None:
        self.calls.append(self.flow.suspension(self.statement, "yield"))

    def visit_Await(self, node: cst.Await) -> None:
        self.calls.append(self.flow.suspension(self.statement, "await"))

    # -- uses ----------------------------------------------------------------------------------
    def visit_Name(self, node: cst.Name) -> None:
        if id(node) in self._targets or node.value not in self.flow.snapshot_names:
            return
        if node not in self.flow.snapshot_loads:
            return
        self._use(node)

    def _use(self, name: cst.Name) -> None:
        flow = self.flow
        child: cst.CSTNode = name
        contained = False
        for parent in reversed(self.stack[:-1]):
            if isinstance(parent, cst.Attribute) and parent.value is child and id(parent) in self._targets:
                return  # `mwb.x = v` writes the old object: MWB106's side, not a read
            if isinstance(parent, cst.Attribute) and parent.value is child and not contained:
                self.uses.append(
                    (
                        name.value,
                        SNAPSHOT_SOURCES.get(parent.attr.value, frozenset({parent.attr.value})),
                        parent.attr.value,
                    )
                )
                return
            if isinstance(parent, _TRANSPARENT) and child is not getattr(parent, "test", None):
                child = parent
                continue
            if isinstance(parent, _DISPLAYS):
                contained = True
                child = parent
                continue
            if isinstance(parent, cst.Arg):
                child = parent
                continue
            if isinstance(parent, cst.Call) and child is not parent.func:
                callee = callee_name(parent)
                if isinstance(parent.func, cst.Attribute) and callee in STORING_METHODS:
                    flow.escape(name.value, self.statement, f"passed to `.{callee}()`, which keeps it")
                elif contained:
                    flow.escape(name.value, self.statement, "put in a container")
                elif callee in ("isinstance", "type", "id") and flow.is_builtin(parent.func):
                    return
                elif isinstance(child, cst.Arg):
                    why = flow.call_keeps(parent, child)
                    if why is not None:
                        flow.escape(name.value, self.statement, why)
                self.uses.append((name.value, CONSUMED_WHOLE if callee in CONSUMING_CALLS else WHOLE_OBJECT, None))
                return
            if isinstance(parent, cst.Comparison):
                if not contained and all(isinstance(t.operator, (cst.Is, cst.IsNot)) for t in parent.comparisons):
                    return
                self.uses.append((name.value, WHOLE_OBJECT, None))
                return
            if isinstance(parent, (cst.Return, cst.Yield)):
                flow.escape(name.value, self.statement, "returned" if isinstance(parent, cst.Return) else "yielded")
                return
            if isinstance(parent, cst.Raise):
                flow.escape(name.value, self.statement, "raised with an exception")
                return
            if isinstance(parent, cst.Assign):
                targets = [t.target for t in parent.targets]
                plain = child is name and all(isinstance(t, cst.Name) for t in targets)
                if not plain:
                    flow.escape(name.value, self.statement, _stored_how(targets, contained))
                return
            if isinstance(parent, (cst.AnnAssign, cst.AugAssign, cst.NamedExpr)):
                flow.escape(name.value, self.statement, _stored_how([parent.target], contained))
                return
            if isinstance(parent, (cst.For, cst.CompFor, cst.WithItem)):
                flow.escape(name.value, self.statement, "bound to another name by a loop or `with`")
                return
            break
        if contained:
            flow.escape(name.value, self.statement, "put in a container")
        self.uses.append((name.value, WHOLE_OBJECT, None))


def _stored_how(targets: Sequence[cst.BaseExpression], contained: bool) -> str:
    what = "put in a container and " if contained else ""
    if any(isinstance(t, cst.Attribute) for t in targets):
        return f"{what}stored in an attribute"
    if any(isinstance(t, cst.Subscript) for t in targets):
        return f"{what}stored in a subscript"
    return f"{what}bound to another name through an expression the tool does not follow"


State = dict[str, frozenset[Mutation]]  # snapshot name -> the mutations since its snapshot was taken


def _join(*states: State | None) -> State | None:
    live = [s for s in states if s is not None]
    if not live:
        return None
    joined: State = {}
    for state in live:
        for name, mutations in state.items():
            joined[name] = joined.get(name, frozenset()) | mutations
    return joined


class _SnapshotFlow:
    def __init__(
        self,
        function: cst.FunctionDef,
        scope: Scope,
        receiver: str,
        snapshot_names: set[str],
        summaries: CalleeSummaries | None,
    ) -> None:
        self.function = function
        self.scope = scope
        self.receiver = receiver
        self.snapshot_names = snapshot_names
        self.summaries = summaries
        self.report = SnapshotReport()
        self.holders = _Holders(function.body, receiver, snapshot_names)
        self.owners = _owners(function, scope, receiver, self.holders.live)
        self.back_references = _components_built_with_owner(scope) if self.owners else frozenset()
        self.snapshot_loads = _Identity(
            reference.node
            for name in snapshot_names
            for assignment in scope.assignments[name]
            for reference in assignment.references
        )
        self.rebinding_nodes = _Identity(
            assignment.node
            for assignment in scope.assignments[receiver]
            # A function scope holds only `Assignment`s, which carry the binding node.
            if isinstance(assignment, Assignment)
            and not isinstance(assignment.node, cst.Param)
            and isinstance(assignment.node, cst.CSTNode)
        )
        # A nested function or lambda that sees the batch may run at any call.
        self.closure_sees_batch = _closure_sees(function.body, self.holders.live | set(self.holders.deep))
        self._hazards: dict[tuple[str, int, Mutation], Hazard] = {}
        self._escapes: dict[tuple[str, int], Escape] = {}
        self._loops: list[tuple[list[State], list[State]]] = []  # (breaks, continues)
        self._tries: list[list[State]] = []  # states any point of a try body may raise from

    # -- facts about expressions ---------------------------------------------------------------
    def is_old_call(self, value: cst.BaseExpression) -> bool:
        return (
            isinstance(value, cst.Call)
            and isinstance(value.func, cst.Attribute)
            and value.func.attr.value == OLD_METHOD
            and isinstance(value.func.value, cst.Name)
            and value.func.value.value == self.receiver
        )

    def call_keeps(self, call: cst.Call, argument: cst.Arg) -> str | None:
        """None when the call provably keeps nothing of the snapshot it is handed (analysis.callee_summaries)."""
        if self.summaries is None:
            return (
                None
                if callee_name(call) in CONSUMERS
                else f"handed to `{callee_name(call) or 'a call'}()`, which may keep it"
            )
        return self.summaries.call_keeps(self.scope, call, argument, True, HELPER_DEPTH)

    def is_builtin(self, func: cst.BaseExpression) -> TypeGuard[cst.Name]:
        if not isinstance(func, cst.Name):
            return False
        return any(q.name == f"builtins.{func.value}" for q in self.scope.get_qualified_names_for(func))

    def write_through(
        self, target: cst.Attribute | cst.Subscript, statement: cst.CSTNode, verb: str = "written"
    ) -> Mutation | None:
        root, first, _ = _root(target)
        if root in self.holders.live:
            if first == "__dict__":
                return Mutation(statement, f"`{root}.__dict__` is {verb} through", frozenset({ANY_FIELD}), True)
            if isinstance(target, cst.Attribute) and isinstance(target.value, cst.Name):
                field_name = target.attr.value  # `first`, for an attribute straight on the name
                return Mutation(statement, f"`{root}.{field_name}` is {verb}", frozenset({field_name}), True)
            if first is None:  # `b[0] = x` on a name that may hold the batch, or a container of it
                return Mutation(statement, f"`{root}` may be changed through a subscript", frozenset({ANY_FIELD}), True)
        # Inside a deep root: only what the old method read there counts; the rest was shared.
        if isinstance(target, cst.Attribute):
            roots = {r for r in self.holders.deep_roots_in(target.value) if target.attr.value in DEEP_READS[r]}
            what = f"`{target.attr.value}`"
        else:
            roots = self.holders.deep_roots_in(target.value) & DEEP_SEQUENCES
            what = "an item"
        if roots:
            shown = " / ".join(f"`{r}`" for r in sorted(roots))
            return Mutation(
                statement, f"{what} of the batch's {shown} is {verb}", frozenset(f"{r}.*" for r in roots), True
            )
        return None

    def call_mutation(self, call: cst.Call, statement: cst.CSTNode) -> Mutation | None:
        func = call.func
        live = self.holders.live
        if self.is_builtin(func) and func.value in ("setattr", "delattr") and call.args:
            changed = _transparent_names(call.args[0].value)[0]
            if changed & live:
                attribute = call.args[1].value if len(call.args) > 1 else None
                name = attribute.evaluated_value if isinstance(attribute, cst.SimpleString) else None
                if isinstance(name, str):  # a bytes name is no attribute: any field, as for a computed one
                    return Mutation(
                        statement, f"`{func.value}()` changes `{self.receiver}.{name}`", frozenset({name}), True
                    )
                return Mutation(
                    statement,
                    f"`{func.value}()` changes an attribute of `{self.receiver}`",
                    frozenset({ANY_FIELD}),
                    True,
                )
        pure = self.is_builtin(func) and func.value in PURE_BUILTINS
        if isinstance(func, cst.Attribute):
            obj = func.value
            root, first, steps = _root(obj)
            if isinstance(obj, cst.Name) and root in live:
                if func.attr.value == OLD_METHOD:
                    return None
                return Mutation(
                    statement, f"`{root}.{func.attr.value}()` may change the batch", frozenset({ANY_FIELD}), False
                )
            if root in live and first is None and steps:
                return Mutation(
                    statement, f"a method on an item of `{root}` may change the batch", frozenset({ANY_FIELD}), False
                )
            if root in live and first == "__dict__":
                return Mutation(
                    statement,
                    f"`{root}.__dict__.{func.attr.value}()` may change any field",
                    frozenset({ANY_FIELD}),
                    False,
                )
            roots = self.holders.deep_roots_in(obj)
            if roots:
                shown = " / ".join(f"`{r}`" for r in sorted(roots))
                return Mutation(
                    statement,
                    f"`{func.attr.value}()` may change the batch's {shown}",
                    frozenset(f"{r}.*" for r in roots),
                    False,
                )
        if pure:
            return None
        callee = callee_name(call) or "a call"
        owner = self.owner_reached(call)
        if owner is not None:
            return Mutation(
                statement,
                f"`{callee}()` is handed `{owner}`, which holds `{self.receiver}`, and may change it",
                frozenset({ANY_FIELD}),
                False,
            )
        for argument in call.args:
            value = argument.value
            names, _ = _transparent_names(value)
            if names & live:
                return Mutation(
                    statement, f"`{self.receiver}` is passed to `{callee}()`", frozenset({ANY_FIELD}), False
                )
            roots = self.holders.deep_roots_in(value)
            if roots:
                shown = " / ".join(f"`{r}`" for r in sorted(roots))
                return Mutation(
                    statement,
                    f"the batch's {shown} is passed to `{callee}()`",
                    frozenset(f"{r}.*" for r in roots),
                    False,
                )
        if self.closure_sees_batch:
            return Mutation(
                statement,
                f"`{callee}()` may run a nested function that changes `{self.receiver}`",
                frozenset({ANY_FIELD}),
                False,
            )
        return None

    def owner_reached(self, call: cst.Call) -> str | None:
        """The owner of the batch (`self` of `self.running_batch`) through which a call may change it.

        The call reaches it when handed the owner itself, when it is a method of the owner
        (`self.update_running_batch()`) that is not provably quiet, or when it is a method of a
        component built with the owner (`self.policy = Policy(self)`; `self.policy.advance()`).
        SGLang's consumers are trusted (analysis.callee_summaries); a component that was never
        handed its owner is assumed not to reach back into the batch the owner holds."""
        if not self.owners or callee_name(call) in CONSUMERS:
            return None
        for argument in call.args:
            if isinstance(argument.value, cst.Name) and argument.value.value in self.owners:
                return argument.value.value
        func = call.func
        if not isinstance(func, cst.Attribute):
            return None
        if isinstance(func.value, cst.Name) and func.value.value in self.owners:
            quiet = self.summaries is not None and self.summaries.changes_nothing(self.scope, call)
            return None if quiet else func.value.value
        root, first, _ = _root(func.value)
        if root in self.owners and first in self.back_references:
            return root
        return None

    def suspension(self, statement: cst.CSTNode, keyword: str) -> Mutation:
        return Mutation(
            statement,
            f"the function is suspended at `{keyword}`, and the batch may change meanwhile",
            frozenset({ANY_FIELD}),
            False,
        )

    def escape(self, name: str, statement: cst.CSTNode, how: str) -> None:
        self._escapes.setdefault((name, id(statement)), Escape(name, statement, how))

    def mutation(self, statement: cst.CSTNode, description: str, effects: Iterable[str], definite: bool) -> Mutation:
        return Mutation(statement, description, frozenset(effects), definite)

    # -- the walk ------------------------------------------------------------------------------
    def run(self) -> SnapshotReport:
        self._block(
            self.function.body.body if isinstance(self.function.body, cst.IndentedBlock) else [self.function.body], {}
        )
        self.report.hazards = list(self._hazards.values())
        self.report.escapes = list(self._escapes.values())
        return self.report

    def _unit(
        self, node: cst.CSTNode, statement: cst.CSTNode, state: State | None, extra: Sequence[Mutation] = ()
    ) -> State | None:
        if state is None:
            return None
        scan = _UnitScan(self, statement)
        node.visit(scan)
        for tries in self._tries:
            tries.append(state)
        state = self._apply(state, [*extra, *scan.calls])
        for name, observed, read in scan.uses:
            # Sorted: a frozenset's order follows ids, and findings must come out in one order.
            for mutation in sorted(state.get(name, ()), key=lambda found: found.description):
                if REBOUND in mutation.effects or ANY_FIELD in mutation.effects or mutation.effects & observed:
                    self._hazards.setdefault((name, id(statement), mutation), Hazard(name, statement, mutation, read))
        state = dict(self._apply(state, scan.writes))
        aliased = {name: state[source] for name, source in scan.aliases if source in state}
        for name in [*scan.unbound, *(name for name, _ in scan.aliases)]:
            state.pop(name, None)
        state.update(aliased)
        for name in scan.fresh:
            state[name] = frozenset()
        for tries in self._tries:
            tries.append(state)
        return state

    @staticmethod
    def _apply(state: State, mutations: list[Mutation]) -> State:
        if not mutations:
            return state
        added = frozenset(mutations)
        return {name: held | added for name, held in state.items()}

    def _block(self, statements: Sequence[cst.CSTNode], state: State | None) -> State | None:
        for statement in statements:
            state = self._statement(statement, state)
        return state

    def _body(self, suite: cst.BaseSuite, state: State | None, owner: cst.CSTNode) -> State | None:
        if isinstance(suite, cst.IndentedBlock):
            return self._block(suite.body, state)
        return self._simple_line(suite, owner, state)  # `if c: x()`: the marker goes on the owner's line

    def _simple_line(
        self, line: cst.SimpleStatementLine | cst.BaseSuite, statement: cst.CSTNode, state: State | None
    ) -> State | None:
        state = self._unit(line, statement, state)
        if state is None:
            return None
        for small in line.body:
            if isinstance(small, (cst.Return, cst.Raise)):
                return None
            if isinstance(small, cst.Break) and self._loops:
                self._loops[-1][0].append(state)
                return None
            if isinstance(small, cst.Continue) and self._loops:
                self._loops[-1][1].append(state)
                return None
        return state

    def _statement(self, statement: cst.CSTNode, state: State | None) -> State | None:
        if state is None:
            return None
        if isinstance(statement, cst.SimpleStatementLine):
            return self._simple_line(statement, statement, state)
        if isinstance(statement, cst.If):
            state = self._unit(statement.test, statement, state)
            taken = self._body(statement.body, state, statement)
            other = state
            if isinstance(statement.orelse, cst.If):
                other = self._statement(statement.orelse, state)
            elif isinstance(statement.orelse, cst.Else):
                other = self._body(statement.orelse.body, state, statement)
            return _join(taken, other)
        if isinstance(statement, cst.While):
            return self._loop(statement, state, header=statement.test, before=None)
        if isinstance(statement, cst.For):
            return self._loop(statement, state, header=statement.target, before=statement.iter)
        if isinstance(statement, cst.With):
            entry = _UnitScan(self, statement)
            for item in statement.items:
                item.visit(entry)
            suspends = [self.suspension(statement, "async with")] if statement.asynchronous else []
            for item in statement.items:
                state = self._unit(item, statement, state, suspends)
            state = self._body(statement.body, state, statement)
            # The context manager's exit runs what its entry was handed, once more.
            return self._apply(state, [*entry.calls, *suspends]) if state is not None else None
        if isinstance(statement, (cst.Try, cst.TryStar)):
            return self._try(statement, state)
        if isinstance(statement, cst.Match):
            state = self._unit(statement.subject, statement, state)
            outs = [
                self._body(case.body, self._unit(case.pattern, statement, state), statement) for case in statement.cases
            ]
            return _join(state, *outs)
        # A nested def or class: decorators, defaults and a class body run now; captures are noted.
        return self._unit(statement, statement, state)

    def _loop(
        self, statement: cst.While | cst.For, state: State | None, header: cst.CSTNode, before: cst.CSTNode | None
    ) -> State | None:
        if before is not None:
            state = self._unit(before, statement, state)
        head = state
        for _ in range(50):  # the lattice is finite; this bounds pathological nesting
            self._loops.append(([], []))
            suspends = (
                [self.suspension(statement, "async for")]
                if isinstance(statement, cst.For) and statement.asynchronous
                else []
            )
            entered = self._unit(header, statement, head, suspends)
            out = self._body(statement.body, entered, statement)
            breaks, continues = self._loops.pop()
            new_head = _join(state, out, *continues)
            if new_head == head:
                break
            head = new_head
        exit_state = head if isinstance(statement, cst.For) else self._unit(header, statement, head)
        if statement.orelse is not None:
            exit_state = self._body(statement.orelse.body, exit_state, statement)
        return _join(exit_state, *breaks)

    def _try(self, statement: cst.Try | cst.TryStar, state: State) -> State | None:
        self._tries.append([state])
        body_out = self._body(statement.body, state, statement)
        raised = _join(*self._tries.pop())
        outs: list[State | None] = []
        for handler in statement.handlers:
            entered = raised
            if handler.name is not None:
                entered = self._unit(handler.name, statement, entered)
            outs.append(self._body(handler.body, entered, handler))
        if statement.orelse is not None:
            body_out = self._body(statement.orelse.body, body_out, statement)
        out = _join(body_out, *outs)
        if statement.finalbody is not None:
            out = self._body(statement.finalbody.body, _join(out, raised), statement)
        return out


class _Identity:
    """A set of nodes by identity (scope metadata hands back the very nodes of the tree)."""

    def __init__(self, nodes: Iterable[object]) -> None:
        self._nodes = {id(node): node for node in nodes}

    def __contains__(self, node: object) -> bool:
        return self._nodes.get(id(node)) is node


def _closure_sees(body: cst.CSTNode, names: set[str]) -> bool:
    class _Finder(cst.CSTVisitor):
        def __init__(self) -> None:
            self.depth = 0
            self.found = False

        def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
            self.depth += 1

        def leave_FunctionDef(self, node: cst.FunctionDef) -> None:
            self.depth -= 1

        def visit_Lambda(self, node: cst.Lambda) -> None:
            self.depth += 1

        def leave_Lambda(self, node: cst.Lambda) -> None:
            self.depth -= 1

        def visit_Name(self, node: cst.Name) -> None:
            if self.depth and node.value in names:
                self.found = True

    finder = _Finder()
    body.visit(finder)
    return finder.found


def _owners(function: cst.FunctionDef, scope: Scope, receiver: str, live: set[str]) -> frozenset[str]:
    """Names through which a call can reach the batch without being handed it.

    The batch bound from an attribute (`batch = self.running_batch`) is reachable from its root
    (`self`): a method of `self` may change it. A batch that is a parameter of a method may be held
    by `self` too (the scheduler's `self.cur_batch`), so `self` is its owner as well."""
    owners: set[str] = set()
    for names, value in _binding_pairs(function.body):
        if any(name.value in live for name in names) and isinstance(value, (cst.Attribute, cst.Subscript)):
            root = _root(value)[0]
            if root is not None and root not in live:
                owners.add(root)
        elif isinstance(value, cst.Call) and _hands_live(value, live):
            owners.update(name.value for name in names if name.value not in live)  # `stepper = Stepper(batch)`
    for stored in _stores_of_live(function.body, live):
        owners.add(stored)  # `pending.append(batch)`, `self.last = batch`
    params = [*function.params.posonly_params, *function.params.params]
    is_parameter = any(param.name.value == receiver for param in [*params, *function.params.kwonly_params])
    if is_parameter and params and params[0].name.value in ("self", "cls") and isinstance(scope.parent, ClassScope):
        owners.add(params[0].name.value)
    return frozenset(owners)


def _hands_live(call: cst.Call, live: set[str]) -> bool:
    """A call that may keep a name holding the batch: not one of SGLang's consumers."""
    if callee_name(call) in CONSUMERS:
        return False
    return any(_transparent_names(argument.value)[0] & live for argument in call.args)


def _stores_of_live(body: cst.CSTNode, live: set[str]) -> set[str]:
    """Roots of what a name holding the batch is stored into: a container's method, an attribute or
    an item; later calls that reach that root reach the batch."""
    roots: set[str] = set()
    for call in m.findall(body, m.Call(func=m.Attribute())):
        assert isinstance(call, cst.Call) and isinstance(call.func, cst.Attribute)
        if call.func.attr.value in STORING_METHODS and _hands_live(call, live):
            root = _root(call.func.value)[0]
            if root is not None and root not in live:
                roots.add(root)
    for assign in m.findall(body, m.Assign()):
        assert isinstance(assign, cst.Assign)
        if not _transparent_names(assign.value)[0] & live:
            continue
        for target in assign.targets:
            if isinstance(target.target, (cst.Attribute, cst.Subscript)):
                root = _root(target.target)[0]
                if root is not None and root not in live:
                    roots.add(root)
    return roots


def _components_built_with_owner(scope: Scope) -> frozenset[str]:
    """Attributes of the enclosing class's instances set from a call that was handed `self`
    (`self.policy = Policy(self)`): such a component can reach whatever its owner holds."""
    parent = scope.parent
    if not isinstance(parent, ClassScope) or not isinstance(parent.node, cst.ClassDef):
        return frozenset()
    found: set[str] = set()
    for names, value in _attribute_bindings(parent.node):
        if isinstance(value, cst.Call) and any(
            isinstance(a.value, cst.Name) and a.value.value in ("self", "cls") for a in value.args
        ):
            found.update(names)
    return frozenset(found)


def _attribute_bindings(owner: cst.ClassDef) -> list[tuple[list[str], cst.BaseExpression]]:
    class _Finder(cst.CSTVisitor):
        def __init__(self) -> None:
            self.found: list[tuple[list[str], cst.BaseExpression]] = []

        def visit_Assign(self, node: cst.Assign) -> None:
            names = [
                t.target.attr.value
                for t in node.targets
                if isinstance(t.target, cst.Attribute)
                and isinstance(t.target.value, cst.Name)
                and t.target.value.value in ("self", "cls")
            ]
            if names:
                self.found.append((names, node.value))

    finder = _Finder()
    owner.visit(finder)
    return finder.found


def snapshot_report(
    function: cst.FunctionDef,
    scope: Scope,
    receiver: str,
    snapshot_names: set[str],
    summaries: CalleeSummaries | None = None,
) -> SnapshotReport:
    """Hazards (a change of the batch that may precede a use of a snapshot name), escapes of the
    snapshot, and `del` of a snapshot name, for the names bound from `receiver.get_model_worker_batch()`."""
    return _SnapshotFlow(function, scope, receiver, snapshot_names, summaries).run()
