"""Helpers several codemods need: recognising old-object parameters and local owners of the old method."""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING, Protocol, Sequence, cast

import libcst as cst
import libcst.matchers as m
from libcst.metadata import ScopeProvider

from mwbmigrate.analysis.capture import refuse_captured_aliases
from mwbmigrate.analysis.names import OLD_PARAMETER
from mwbmigrate.analysis.old_api import NEW_CLASS, OLD_METHOD, union_members
from mwbmigrate.analysis.receivers import FunctionFacts, analyse_function
from mwbmigrate.analysis.window import WindowProof

if TYPE_CHECKING:
    from mwbmigrate.codemods.base import MigrationCodemod

PASS_LINE = cst.SimpleStatementLine(body=[cst.Pass()])


def leading_lines(statement: cst.BaseStatement) -> Sequence[cst.EmptyLine]:
    """A statement's leading lines: every statement is a simple statement line or a compound
    statement, and both have them (`BaseStatement` itself does not declare them)."""
    return cast("cst.SimpleStatementLine | cst.BaseCompoundStatement", statement).leading_lines


def bound_name(statement: cst.CSTNode) -> str:
    """The name of a binding `name = value` alone on its line (as the receivers analysis records them)."""
    assign = cst.ensure_type(cst.ensure_type(statement, cst.SimpleStatementLine).body[0], cst.Assign)
    return cst.ensure_type(assign.targets[0].target, cst.Name).value


class OldClassNamer(Protocol):
    """What tells whether a node names the old class: a codemod, or a reporter's context."""

    def names_old_class(self, node: cst.CSTNode) -> bool: ...


def annotation_is_old_class(codemod: OldClassNamer, annotation: cst.BaseExpression) -> bool:
    """`ModelWorkerBatch`, or the class or `None` (`Optional[...]`, `... | None`, `Union[..., None]`);
    a `Union` with ScheduleBatch is not."""
    members = union_members(annotation)
    return len(members) == 1 and codemod.names_old_class(members[0])


def param_holds_old_object(codemod: OldClassNamer, param: cst.Param) -> bool:
    annotation = param.annotation.annotation if param.annotation is not None else None
    if annotation is not None and annotation_is_old_class(codemod, annotation):
        return True
    if param.name.value != OLD_PARAMETER:
        return False
    # A parameter named after the old object holds it unless its annotation says otherwise.
    return annotation is None or m.matches(annotation, m.Name("Any") | m.Attribute(attr=m.Name("Any")))


# Methods that SGLang handed the old object, second after `self` or `cls`: a module function installed
# over one (`ForwardBatch.init_new = traced_init_new`) takes it there, whatever its parameter is called.
_OLD_OBJECT_METHODS = frozenset({"init_new", "forward_batch_generation", "forward_batch_embedding"})


def _installed_over_old_api(module: cst.Module, function: cst.FunctionDef) -> cst.Param | None:
    """The second positional parameter of a module function that the module installs over one of
    `_OLD_OBJECT_METHODS` (`W.forward_batch_generation = f`, `ForwardBatch.init_new = classmethod(f)`,
    `setattr(W, "init_new", f)`), anywhere in the module."""
    if function not in module.body or function.name.value not in _installed_functions(module):
        return None
    positional = [*function.params.posonly_params, *function.params.params]
    return positional[1] if len(positional) > 1 else None


@functools.lru_cache(maxsize=4)
def _installed_functions(module: cst.Module) -> frozenset[str]:
    method = m.Attribute(attr=m.Name(value=m.MatchIfTrue(_OLD_OBJECT_METHODS.__contains__)))
    found: set[str] = set()

    def function_named(value: cst.BaseExpression) -> str | None:
        # `f`, or `classmethod(f)` / `staticmethod(f)` / `types.MethodType(f, ...)`: the first argument
        while isinstance(value, cst.Call) and value.args:
            value = value.args[0].value
        return value.value if isinstance(value, cst.Name) else None

    for assign in m.findall(module, m.Assign()):
        assign = cst.ensure_type(assign, cst.Assign)
        if any(m.matches(t.target, method) for t in assign.targets):
            name = function_named(assign.value)
            if name is not None:
                found.add(name)
    for call in m.findall(module, m.Call(func=m.Name("setattr"), args=[m.Arg(), m.Arg(m.SimpleString()), m.Arg()])):
        call = cst.ensure_type(call, cst.Call)
        attribute = cst.ensure_type(call.args[1].value, cst.SimpleString).evaluated_value
        name = function_named(call.args[2].value)
        if attribute in _OLD_OBJECT_METHODS and name is not None:
            found.add(name)
    return frozenset(found)


def local_method_owners(codemod: MigrationCodemod) -> frozenset[str]:
    """Classes in this module defining `get_model_worker_batch`, SGLang's ScheduleBatch excepted."""
    state = codemod.state
    if state.local_method_owners is None:
        owners: set[str] = set()
        for node in codemod.module.body:
            if isinstance(node, cst.ClassDef) and isinstance(node.body, cst.IndentedBlock):
                if node.name.value == NEW_CLASS and state.location.is_schedule_batch_module:
                    continue
                if any(isinstance(s, cst.FunctionDef) and s.name.value == OLD_METHOD for s in node.body.body):
                    owners.add(node.name.value)
        state.local_method_owners = frozenset(owners)
    return state.local_method_owners


def receivers_with_own_method(codemod: MigrationCodemod, function: cst.FunctionDef) -> set[str]:
    """Receivers whose `get_model_worker_batch` is a class of this module's, not SGLang's:
    `self` inside such a class, and locals bound to `SuchClass(...)`."""
    owners = local_method_owners(codemod)
    if not owners:
        return set()
    names: set[str] = set()
    classes = [n for n in codemod._ancestors if isinstance(n, cst.ClassDef)]
    if classes and classes[-1].name.value in owners:
        names.add("self")

    class _Instances(cst.CSTVisitor):
        def visit_Assign(self, node: cst.Assign) -> None:
            value = node.value
            if isinstance(value, cst.Call) and isinstance(value.func, cst.Name) and value.func.value in owners:
                for target in node.targets:
                    if isinstance(target.target, cst.Name):
                        names.add(target.target.value)

    function.body.visit(_Instances())
    return names


def function_facts(codemod: MigrationCodemod, function: cst.FunctionDef) -> FunctionFacts:
    scope = codemod.get_metadata(ScopeProvider, function.body, None)
    proof = None if scope is None else WindowProof(codemod.module, function, scope, codemod.state.window_facts)
    keep_snapshots = not codemod.state.live_batch
    installed = _installed_over_old_api(codemod.module, function)
    facts = analyse_function(
        codemod,
        function,
        lambda param: param is installed or param_holds_old_object(codemod, param),
        skip_receivers=receivers_with_own_method(codemod, function),
        proof=proof,
        keep_snapshots=keep_snapshots,
    )
    # Here, not in worker-batch-calls alone: every codemod must agree on what still holds the old object.
    return refuse_captured_aliases(
        facts, lambda node: codemod.get_metadata(ScopeProvider, node, None), keep_snapshots=keep_snapshots
    )
