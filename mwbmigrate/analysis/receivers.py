"""Which names in a function hold the old object, and whether `get_model_worker_batch()` can be dropped.

A name holds the old object when it is a parameter named `model_worker_batch` (untyped, `Any` or
annotated with the old class), a parameter annotated with the old class, or a local whose every
binding is `<receiver>.get_model_worker_batch(...)`, the receiver itself, or another such local.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import libcst as cst
from libcst.metadata import CodeRange, Scope, ScopeProvider

from mwbmigrate.analysis.old_api import OLD_METHOD, OVERRIDE_ARGUMENT


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
    calls_old_method: bool = False  # `x.get_model_worker_batch(...)` anywhere in the body, bound or not

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
    if (
        isinstance(node, cst.Call)
        and isinstance(node.func, cst.Attribute)
        and node.func.attr.value == OLD_METHOD
    ):
        return node
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
    """Simple `name = value` statements and attribute writes of one function body (not nested defs)."""

    def __init__(self) -> None:
        self.assigns: list[tuple[cst.SimpleStatementLine, str, cst.BaseExpression]] = []
        self.attribute_writes: list[tuple[cst.Attribute, str, str]] = []  # (node, base name, attr)
        self.attribute_reads: list[tuple[cst.Attribute, str, str]] = []
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

    def _record_write(self, target: cst.BaseExpression) -> None:
        if isinstance(target, cst.Attribute) and isinstance(target.value, cst.Name):
            self.attribute_writes.append((target, target.value.value, target.attr.value))

    def visit_AssignTarget(self, node: cst.AssignTarget) -> None:
        self._record_write(node.target)

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        self._record_write(node.target)

    def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
        self._record_write(node.target)

    def visit_Attribute(self, node: cst.Attribute) -> None:
        if isinstance(node.value, cst.Name):
            self.attribute_reads.append((node, node.value.value, node.attr.value))


def analyse_function(codemod, function: cst.FunctionDef, param_is_old, skip_receivers=frozenset()) -> FunctionFacts:
    """Facts about one function; `param_is_old(param)` says whether a parameter holds the old object.

    Calls on `skip_receivers` are not SGLang's method (a local class defines its own) and are
    left out silently: the wild-shapes codemod reports them.
    """
    scope = codemod.get_metadata(ScopeProvider, function.body, None)
    facts = FunctionFacts(function=function, scope=scope)
    facts.old_params = [p for p in all_params(function.params) if param_is_old(p)]
    if scope is None:
        return facts

    collector = _Collector()
    function.body.visit(collector)
    facts.calls_old_method = collector.calls_old_method

    def position(node: cst.CSTNode) -> CodeRange:
        return codemod.state.positions.within(function)[node]

    # Locals bound from get_model_worker_batch, then the names bound only to them or their receiver.
    receivers: dict[str, str] = {}
    calls: dict[str, list[tuple[cst.SimpleStatementLine, cst.Call]]] = {}
    for statement, name, value in collector.assigns:
        call = old_method_call(value)
        if call is not None and isinstance(call.func.value, cst.Name):
            if call.func.value.value in skip_receivers:
                continue
            receivers.setdefault(name, call.func.value.value)
            calls.setdefault(name, []).append((statement, call))

    assigns_by_name: dict[str, list[tuple[cst.SimpleStatementLine, cst.BaseExpression]]] = {}
    for statement, name, value in collector.assigns:
        assigns_by_name.setdefault(name, []).append((statement, value))

    candidates = dict(receivers)
    changed = True
    while changed:
        changed = False
        for statement, name, value in collector.assigns:
            if name in candidates or not isinstance(value, cst.Name) or value.value not in candidates:
                continue
            candidates[name] = candidates[value.value]
            changed = True

    for name, receiver in list(candidates.items()):
        reason = _alias_refusal(name, receiver, candidates, assigns_by_name, scope)
        if reason is None:
            for statement, call in calls.get(name, []):
                if not call_is_migratable(call):
                    reason = f"`{OLD_METHOD}` called with arguments other than `{OVERRIDE_ARGUMENT}`"
        if reason is not None:
            first = assigns_by_name[name][0][0]
            facts.refusals.append((first, reason))
            candidates.pop(name)
    # An alias of a refused name is refused too.
    for name in list(candidates):
        for statement, value in assigns_by_name[name]:
            if isinstance(value, cst.Name) and value.value not in candidates and value.value != candidates[name]:
                candidates.pop(name, None)
                break

    for name, receiver in list(candidates.items()):
        binding_lines = [position(statement).start.line for statement, _ in assigns_by_name[name]]
        use_lines = [
            position(reference.node).start.line
            for assignment in scope.assignments[name]
            for reference in assignment.references
        ]
        if not use_lines:
            use_lines = binding_lines
        first, last = min(binding_lines), max(use_lines)
        rebind = [
            a for a in scope.assignments[receiver]
            if not isinstance(a.node, cst.Param)
            and isinstance(a.node, cst.CSTNode)
            and first < position(a.node).start.line <= last
        ]
        if rebind:
            facts.refusals.append((
                assigns_by_name[name][0][0],
                f"`{receiver}` is rebound before the last use of `{name}`",
            ))
            candidates.pop(name)
            continue
        reason = _write_before_read(name, receiver, collector, position, binding_lines)
        if reason is not None:
            facts.refusals.append((assigns_by_name[name][0][0], reason))
            candidates.pop(name)

    facts.aliases = candidates
    for name in candidates:
        facts.bindings[name] = [
            Binding(statement, old_method_call(value)) for statement, value in assigns_by_name[name]
        ]
    return facts


def _alias_refusal(name, receiver, candidates, assigns_by_name, scope) -> str | None:
    if name == receiver:
        return f"`{name}` is both the receiver and the result"
    for assignment in scope.assignments[name]:
        node = assignment.node
        if isinstance(node, cst.Param):
            return f"`{name}` is also a parameter"
        if not isinstance(node, cst.Name):
            return f"`{name}` is bound by something other than a plain assignment"
    if len(list(scope.assignments[name])) != len(assigns_by_name.get(name, [])):
        return f"`{name}` is bound by something other than a plain assignment"
    for statement, value in assigns_by_name.get(name, []):
        call = old_method_call(value)
        if call is not None:
            if not (isinstance(call.func.value, cst.Name) and call.func.value.value == receiver):
                return f"`{name}` is bound from more than one receiver"
            continue
        if isinstance(value, cst.Name) and (value.value == receiver or candidates.get(value.value) == receiver):
            continue
        return f"`{name}` is also bound to something that is not the batch"
    return None


def _write_before_read(name, receiver, collector, position, binding_lines) -> str | None:
    """A write to `receiver.<attr>` between the binding a read of `name.<attr>` sees and that read."""
    writes = [
        (position(node).start.line, attr)
        for node, base, attr in collector.attribute_writes
        if base == receiver
    ]
    if not writes:
        return None
    for node, base, attr in collector.attribute_reads:
        if base != name:
            continue
        read_line = position(node).start.line
        earlier = [line for line in binding_lines if line < read_line]
        if not earlier:
            continue
        binding = max(earlier)
        for write_line, written in writes:
            if written == attr and binding < write_line < read_line:
                return (
                    f"`{receiver}.{attr}` is written before `{name}.{attr}` is read, so the old "
                    f"snapshot and the live batch differ"
                )
    return None


def all_params(params: cst.Parameters) -> list[cst.Param]:
    """Named parameters of a signature (positional-only, ordinary, keyword-only), in order."""
    return [*params.posonly_params, *params.params, *params.kwonly_params]
