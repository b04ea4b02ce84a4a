"""Which names in a function hold the old object, and whether `get_model_worker_batch()` can be dropped.

A name holds the old object when it is a parameter named `model_worker_batch` (untyped, `Any` or
annotated with the old class), a parameter annotated with the old class, or a local whose every
binding is `<receiver>.get_model_worker_batch(...)`, the receiver itself, or another such local.
"""

from __future__ import annotations

from collections.abc import Callable, Collection
from dataclasses import dataclass, field

import libcst as cst
from libcst import MetadataDependent
from libcst.metadata import Assignment, Scope, ScopeProvider

from mwbmigrate.analysis.callee_summaries import CalleeSummaries
from mwbmigrate.analysis.mutations import REBOUND, Hazard, snapshot_report
from mwbmigrate.analysis.old_api import OLD_METHOD, OVERRIDE_ARGUMENT
from mwbmigrate.analysis.window import Unproven, WindowProof

# Each local's plain `name = value` bindings, in order: name -> [(statement, value)].
AssignsByName = dict[str, list[tuple[cst.SimpleStatementLine, cst.BaseExpression]]]


@dataclass
class Binding:
    statement: cst.SimpleStatementLine
    call: cst.Call | None  # None when the value is the receiver or another alias


@dataclass
class FunctionFacts:
    function: cst.FunctionDef
    scope: Scope | None
    old_params: list[cst.Param] = field(default_factory=list)
    aliases: dict[str, str] = field(default_factory=dict)  # local name -> receiver name, when safe
    bindings: dict[str, list[Binding]] = field(default_factory=dict)
    refusals: list[tuple[cst.CSTNode, str]] = field(default_factory=list)  # (node, reason)
    # Review items on statements of a rewritten site: (statement, code, reason).
    reviews: list[tuple[cst.CSTNode, str, str]] = field(default_factory=list)
    calls_old_method: bool = False  # `x.get_model_worker_batch(...)` anywhere in the body, bound or not
    # Snapshots kept in code (`worker_batch_snapshot`): binding statement -> why the live batch is not proven.
    kept: dict[cst.SimpleStatementLine, Unproven] = field(default_factory=dict)

    def old_object_accesses(self) -> set[cst.Name]:
        """Every `Name` node that reads a name holding the old object in this function."""
        if self.scope is None:
            return set()
        names = {param.name.value for param in self.old_params} | set(self.aliases)
        nodes: set[cst.Name] = set()
        for name in names:
            for assignment in self.scope.assignments[name]:
                for reference in assignment.references:
                    if isinstance(reference.node, cst.Name):
                        nodes.add(reference.node)
        return nodes


def old_method_call(node: cst.BaseExpression) -> cst.Call | None:
    if isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute) and node.func.attr.value == OLD_METHOD:
        return node
    return None


def call_receiver(call: cst.Call) -> str | None:
    """`batch` in `batch.get_model_worker_batch()`: the receiver of a method call, when it is a plain name."""
    func = call.func
    if isinstance(func, cst.Attribute) and isinstance(func.value, cst.Name):
        return func.value.value
    return None


def override_argument(call: cst.Call) -> cst.BaseExpression | None:
    """The `seq_lens_cpu_cache` value passed to `get_model_worker_batch`, keyword or positional."""
    for argument in call.args:
        if argument.keyword is not None and argument.keyword.value == OVERRIDE_ARGUMENT:
            return argument.value
        if argument.keyword is None and argument.star == "":
            return argument.value
    return None


def call_is_migratable(call: cst.Call) -> bool:
    """Only no arguments, or exactly the one override argument, have a known translation."""
    if len(call.args) > 1:
        return False
    return not call.args or override_argument(call) is not None


class _Collector(cst.CSTVisitor):
    """Simple `name = value` statements of one function body (not nested defs)."""

    def __init__(self) -> None:
        self.assigns: list[tuple[cst.SimpleStatementLine, str, cst.BaseExpression]] = []
        self.calls_old_method = False

    def visit_Call(self, node: cst.Call) -> None:
        self.calls_old_method = self.calls_old_method or old_method_call(node) is not None

    def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
        return False

    def visit_ClassDef(self, node: cst.ClassDef) -> bool:
        return False

    def visit_SimpleStatementLine(self, node: cst.SimpleStatementLine) -> None:
        if len(node.body) == 1 and isinstance(node.body[0], cst.Assign):
            assign = node.body[0]
            if len(assign.targets) == 1 and isinstance(assign.targets[0].target, cst.Name):
                self.assigns.append((node, assign.targets[0].target.value, assign.value))


def analyse_function(
    codemod: MetadataDependent,
    function: cst.FunctionDef,
    param_is_old: Callable[[cst.Param], bool],
    skip_receivers: Collection[str] = frozenset(),
    proof: WindowProof | None = None,
) -> FunctionFacts:
    """Facts about one function; `param_is_old(param)` says whether a parameter holds the old object.

    Calls on `skip_receivers` are not SGLang's method (a local class defines its own) and are
    left out silently: the wild-shapes codemod reports them.

    With a `proof` (the default, safe mode), a snapshot becomes the live batch only where the window
    allowlist proves it (analysis.window); every other one is kept in code (`kept`). Without it
    (`--live-batch`), every snapshot the mutation analysis does not refuse becomes the live batch,
    marked where it may differ.
    """
    scope = codemod.get_metadata(ScopeProvider, function.body, None)
    facts = FunctionFacts(function=function, scope=scope)
    facts.old_params = [p for p in all_params(function.params) if param_is_old(p)]
    if scope is None:
        return facts

    collector = _Collector()
    function.body.visit(collector)
    facts.calls_old_method = collector.calls_old_method

    # Locals bound from get_model_worker_batch, then the names bound only to them or their receiver.
    receivers: dict[str, str] = {}
    calls: dict[str, list[tuple[cst.SimpleStatementLine, cst.Call]]] = {}
    for statement, name, value in collector.assigns:
        call = old_method_call(value)
        receiver = call_receiver(call) if call is not None else None
        if call is not None and receiver is not None:
            if receiver in skip_receivers:
                continue
            receivers.setdefault(name, receiver)
            calls.setdefault(name, []).append((statement, call))

    assigns_by_name: AssignsByName = {}
    for statement, name, value in collector.assigns:
        assigns_by_name.setdefault(name, []).append((statement, value))

    candidates = dict(receivers)
    changed = True
    while changed:
        changed = False
        for _statement, name, value in collector.assigns:
            if name in candidates or not isinstance(value, cst.Name) or value.value not in candidates:
                continue
            candidates[name] = candidates[value.value]
            changed = True

    for name, receiver in list(candidates.items()):
        reason = _alias_refusal(name, receiver, candidates, assigns_by_name, scope)
        unmigratable = any(not call_is_migratable(call) for _statement, call in calls.get(name, []))
        if unmigratable:
            reason = f"`{OLD_METHOD}` called with arguments other than `{OVERRIDE_ARGUMENT}`"
        elif reason is not None and proof is not None:
            # The copy keeps the old object whatever else the name is bound to.
            hazard = f"{reason}: there the forward gets that value, not a snapshot"
            for statement, _call in calls.get(name, []):
                facts.kept[statement] = Unproven(statement, reason, hazard)
            candidates.pop(name)
            continue
        if reason is not None:
            first = assigns_by_name[name][0][0]
            facts.refusals.append((first, reason))
            candidates.pop(name)
    # An alias of a refused name is refused too.
    for name in list(candidates):
        for _statement, value in assigns_by_name[name]:
            if isinstance(value, cst.Name) and value.value not in candidates and value.value != candidates[name]:
                candidates.pop(name, None)
                break

    if proof is not None:
        _prove_windows(proof, facts, candidates, assigns_by_name)
    summaries = CalleeSummaries(lambda node: codemod.get_metadata(ScopeProvider, node, None))
    for receiver in sorted(set(candidates.values()) if proof is None else ()):
        names = {name for name, r in candidates.items() if r == receiver}
        _judge_snapshots(summaries, facts, function, scope, receiver, names, candidates, assigns_by_name)

    facts.aliases = candidates
    for name in candidates:
        facts.bindings[name] = [
            Binding(statement, old_method_call(value)) for statement, value in assigns_by_name[name]
        ]
    return facts


def _prove_windows(
    proof: WindowProof, facts: FunctionFacts, candidates: dict[str, str], assigns_by_name: AssignsByName
) -> None:
    """Safe mode: a snapshot name reads the live batch only where the allowlist proves its window."""
    names = set(candidates)
    for group in set(_alias_groups(names, assigns_by_name).values()):
        first_name = sorted(group)[0]
        statement, value = assigns_by_name[first_name][0]
        unproven: Unproven | None = None
        if len(group) > 1:
            unproven = Unproven(statement, f"{', '.join(f'`{n}`' for n in sorted(group))} name one snapshot")
        elif len(assigns_by_name[first_name]) > 1:
            unproven = Unproven(statement, f"`{first_name}` is bound more than once")
        else:
            call = old_method_call(value)
            if call is not None and call.args:
                unproven = Unproven(
                    statement,
                    f"it takes `{OVERRIDE_ARGUMENT}`, which the snapshot kept for every forward and a forward "
                    f"consumes from the batch",
                )
            else:
                unproven = proof.bound(statement, first_name, candidates[first_name])
        if unproven is None:
            continue
        for name in group:
            for bound_statement, bound_value in assigns_by_name[name]:
                if old_method_call(bound_value) is not None:
                    facts.kept[bound_statement] = unproven
            candidates.pop(name, None)


def _alias_refusal(
    name: str, receiver: str, candidates: dict[str, str], assigns_by_name: AssignsByName, scope: Scope
) -> str | None:
    if name == receiver:
        return f"`{name}` is both the receiver and the result"
    for assignment in scope.assignments[name]:
        node = assignment.node if isinstance(assignment, Assignment) else None
        if isinstance(node, cst.Param):
            return f"`{name}` is also a parameter"
        if not isinstance(node, cst.Name):
            return f"`{name}` is bound by something other than a plain assignment"
    if len(list(scope.assignments[name])) != len(assigns_by_name.get(name, [])):
        return f"`{name}` is bound by something other than a plain assignment"
    for _statement, value in assigns_by_name.get(name, []):
        call = old_method_call(value)
        if call is not None:
            if call_receiver(call) != receiver:
                return f"`{name}` is bound from more than one receiver"
            continue
        if isinstance(value, cst.Name) and (value.value == receiver or candidates.get(value.value) == receiver):
            continue
        return f"`{name}` is also bound to something that is not the batch"
    return None


def _judge_snapshots(
    summaries: CalleeSummaries,
    facts: FunctionFacts,
    function: cst.FunctionDef,
    scope: Scope,
    receiver: str,
    names: set[str],
    candidates: dict[str, str],
    assigns_by_name: AssignsByName,
) -> None:
    """Whether the batch can change before a use of the snapshot names bound from `receiver`
    (analysis.mutations). A definite change (a write, a rebinding, a `del`) keeps the call (MWB101);
    a possible one (a call that may change the batch) is rewritten and marked there (MWB141); a
    snapshot that outlives its statement is rewritten and marked where it escapes (MWB142).

    Names joined by `x = y` are one snapshot: they are kept or rewritten together."""
    report = snapshot_report(function, scope, receiver, names, summaries)
    groups = _alias_groups(names, assigns_by_name)
    refused: dict[frozenset[str], str] = {}
    for name, _statement in report.deleted:
        refused.setdefault(groups[name], f"`del {name}` would delete `{receiver}` once `{name}` reads it")
    for hazard in report.hazards:
        if hazard.mutation.definite:
            refused.setdefault(groups[hazard.name], _definite_reason(hazard, receiver))
    for group, reason in refused.items():
        for name in sorted(group):
            if any(old_method_call(value) is not None for _, value in assigns_by_name[name]):
                facts.refusals.append((assigns_by_name[name][0][0], reason))
            candidates.pop(name, None)
    reviews: dict[tuple[int, str], tuple[cst.CSTNode, str, str]] = {}
    for hazard in report.hazards:
        if hazard.name in candidates:
            mutation = hazard.mutation
            reason = (
                f"{mutation.description} before `{hazard.name}` is used: "
                f"`{hazard.name}` was a snapshot, now it is the live batch"
            )
            reviews.setdefault((id(mutation.statement), reason), (mutation.statement, "MWB141", reason))
    for escape in report.escapes:
        if escape.name in candidates:
            reason = (
                f"`{escape.name}` is {escape.how}: it was a snapshot, now it is the live `{receiver}`, "
                f"whose later changes show through it"
            )
            reviews.setdefault((id(escape.statement), reason), (escape.statement, "MWB142", reason))
    facts.reviews.extend(reviews.values())


def _definite_reason(hazard: Hazard, receiver: str) -> str:
    mutation = hazard.mutation
    if REBOUND in mutation.effects:
        return f"`{receiver}` is rebound before the last use of `{hazard.name}`"
    if hazard.read is not None and mutation.effects == {hazard.read}:
        return (
            f"`{receiver}.{hazard.read}` is written before `{hazard.name}.{hazard.read}` is read, so the old "
            f"snapshot and the live batch differ"
        )
    return f"{mutation.description} before `{hazard.name}` is used, so the old snapshot and the live batch differ"


def _alias_groups(names: set[str], assigns_by_name: AssignsByName) -> dict[str, frozenset[str]]:
    """Each snapshot name -> the names `x = y` joins it to."""
    parent = {name: name for name in names}

    def find(name: str) -> str:
        while parent[name] != name:
            name = parent[name]
        return name

    for name in names:
        for _, value in assigns_by_name.get(name, []):
            if isinstance(value, cst.Name) and value.value in names:
                parent[find(name)] = find(value.value)
    members: dict[str, set[str]] = {}
    for name in names:
        members.setdefault(find(name), set()).add(name)
    return {name: frozenset(members[find(name)]) for name in names}


def all_params(params: cst.Parameters) -> list[cst.Param]:
    """Named parameters of a signature (positional-only, ordinary, keyword-only), in order."""
    return [*params.posonly_params, *params.params, *params.kwonly_params]
