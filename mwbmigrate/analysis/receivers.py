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

from mwbmigrate.analysis.old_api import OLD_METHOD, OVERRIDE_ARGUMENT
from mwbmigrate.analysis.scopes import printed_expressions
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
    # `--live-batch`: each site the allowlist did not prove, as (why, the names of its snapshot, receiver).
    live_sites: list[tuple[Unproven, frozenset[str], str]] = field(default_factory=list)
    calls_old_method: bool = False  # `x.get_model_worker_batch(...)` anywhere in the body, bound or not
    # Snapshots kept in code (`worker_batch_snapshot`): binding statement -> why the live batch is not proven.
    kept: dict[cst.SimpleStatementLine, Unproven] = field(default_factory=dict)
    # `--live-batch`: the snapshot names that read the live batch where the allowlist did not prove it.
    unproven_live: set[str] = field(default_factory=set)

    def old_object_accesses(self) -> set[cst.Name]:
        """Every `Name` node that reads a name holding the old object in this function."""
        if self.scope is None:
            return set()
        names = {param.name.value for param in self.old_params} | set(self.aliases)
        names |= parameter_aliases(self.function, self.scope, {param.name.value for param in self.old_params})
        nodes: set[cst.Name] = set()
        for name in names:
            for assignment in self.scope.assignments[name]:
                for reference in assignment.references:
                    if isinstance(reference.node, cst.Name):
                        nodes.add(reference.node)
        return nodes


def parameter_aliases(function: cst.FunctionDef, scope: Scope, params: set[str]) -> set[str]:
    """Locals that only ever hold what a parameter holding the old object holds: each of their
    bindings in the function is a plain `alias = param` (or `= another such alias`), and that
    parameter is never bound again. A write or a read through one is a write or a read of the
    parameter's object (`mwb = model_worker_batch; mwb.input_ids = ...`)."""
    plain = {name for name in params if len(list(scope.assignments[name])) == 1}
    values: dict[str, list[cst.BaseExpression | None]] = {}
    for statement in _own_statements(function):
        for small in statement.body if isinstance(statement, cst.SimpleStatementLine) else ():
            if (
                isinstance(small, cst.Assign)
                and len(small.targets) == 1
                and isinstance(small.targets[0].target, cst.Name)
            ):
                values.setdefault(small.targets[0].target.value, []).append(small.value)
    found: set[str] = set()
    changed = True
    while changed:
        changed = False
        for name, bound in values.items():
            if name in found or name in params or len(list(scope.assignments[name])) != len(bound):
                continue
            if all(isinstance(value, cst.Name) and value.value in plain | found for value in bound):
                found.add(name)
                changed = True
    return found


def _own_statements(function: cst.FunctionDef) -> list[cst.SimpleStatementLine]:
    """The simple statements of the function's own body, at any depth, not those of nested scopes."""
    found: list[cst.SimpleStatementLine] = []
    pending: list[cst.CSTNode] = [function.body]
    while pending:
        node = pending.pop()
        if isinstance(node, cst.SimpleStatementLine):
            found.append(node)
            continue
        if isinstance(node, (cst.FunctionDef, cst.ClassDef)):
            continue
        pending.extend(node.children)
    return found


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
    keep_snapshots: bool = True,
) -> FunctionFacts:
    """Facts about one function; `param_is_old(param)` says whether a parameter holds the old object.

    Calls on `skip_receivers` are not SGLang's method (a local class defines its own) and are
    left out silently: the wild-shapes codemod reports them.

    A snapshot reads the live batch silently only where the window allowlist (`proof`, analysis.window)
    proves it. Every other one is kept in code (`kept`) with `keep_snapshots` (the default), or
    (`--live-batch`) reads the live batch too, where the allowlist stopped (`live_sites`).
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
        elif reason is not None and keep_snapshots:
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

    printed = printed_expressions(function)  # `f"{mwb.seq_lens=}"` prints the name the live batch would change
    _prove_windows(proof, facts, candidates, assigns_by_name, keep_snapshots, printed)

    facts.aliases = candidates
    for name in candidates:
        facts.bindings[name] = [
            Binding(statement, old_method_call(value)) for statement, value in assigns_by_name[name]
        ]
    return facts


def _prove_windows(
    proof: WindowProof | None,
    facts: FunctionFacts,
    candidates: dict[str, str],
    assigns_by_name: AssignsByName,
    keep_snapshots: bool,
    printed: Collection[str],
) -> None:
    """A snapshot name reads the live batch silently only where the allowlist proves its window."""
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
            if call is not None and call.args and keep_snapshots:
                unproven = Unproven(
                    statement,
                    f"it takes `{OVERRIDE_ARGUMENT}`, which the snapshot kept for every forward and a forward "
                    f"consumes from the batch",
                )
            elif call is not None and call.args:
                # The override goes on the batch, where 0.5.13's `init_new` also checks its shape against
                # the batch's `seq_lens` and 0.5.16's reads no such field.
                unproven = Unproven(
                    statement,
                    f"it takes `{OVERRIDE_ARGUMENT}`, which the old method put in the snapshot alone; on the "
                    f"batch, the target's forward reads it otherwise",
                )
            elif first_name in printed:
                unproven = Unproven(statement, f"a self-documenting f-string prints `{first_name}` by name")
            elif proof is None:
                unproven = Unproven(statement, "the tool does not follow this function's scope")
            else:
                unproven = proof.bound(statement, first_name, candidates[first_name])
        if unproven is None:
            continue
        if not keep_snapshots:
            facts.unproven_live |= group
            facts.live_sites.append((unproven, group, candidates[first_name]))
            continue
        for name in group:
            for bound_statement, bound_value in assigns_by_name[name]:
                if old_method_call(bound_value) is not None:
                    facts.kept[bound_statement] = unproven
            candidates.pop(name, None)


def _alias_refusal(
    name: str,
    receiver: str,
    candidates: dict[str, str],
    assigns_by_name: AssignsByName,
    scope: Scope,
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
