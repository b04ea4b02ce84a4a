"""When reading the live batch where a snapshot was read is proven the same: an allowlist.

`get_model_worker_batch()` returned a per-forward snapshot. The rewrite reads the live batch instead
only where the snapshot's *window* (the statements from the snapshot to its last use) runs no code
but SGLang's `ForwardBatch.init_new`, so nothing can change the batch in between. Python runs user
code almost anywhere (a property on a field read, `__eq__`, `__bool__`, `__len__`, a finalizer when
a name is rebound, a method swapped on an instance), so the list is short on purpose. Everywhere
else the rewrite keeps the snapshot in code (`runtime.worker_batch_snapshot`), which behaves as the
old object did whatever the window runs.

The allowlist (README, "When the live batch is read"):

1. the snapshot is one local, bound once, by a call without the override argument, and every use is
   in the statements that follow it in its block (or the call is inline, in such a statement);
2. each of those statements is `ForwardBatch.init_new(...)` alone: an expression statement,
   `return`, or an assignment to a local bound nowhere else in the function;
3. `ForwardBatch` is bound once, by an import from SGLang;
4. every argument is the snapshot, a local or parameter name, or a literal;
5. nowhere in the tree is `init_new` patched, nor code run when the forward reads an attribute (a
   property named as a field the forward reads, `__getattribute__`, a descriptor class): the
   whole-tree facts of `analysis/tree_facts.py`;
6. a window statement may also be an assert on the snapshot's capture mode against what runs no
   code (`derived_mode_check`), which the rewrite makes read the old method's derivation from the
   batch (`derived_mode_expression`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import libcst as cst
import libcst.matchers as m
from libcst.metadata import Assignment, BaseAssignment, ClassScope, ImportAssignment, Scope

from mwbmigrate.analysis.names import ONE_SHOT_OVERRIDES
from mwbmigrate.analysis.old_api import OLD_CLASS, OLD_OBJECT_FIELDS
from mwbmigrate.analysis.tree_facts import WindowFacts
from mwbmigrate.runtime.snapshot import CONSUMER_READS

CONSUMER = "init_new"
CONSUMER_CLASS = "ForwardBatch"
DERIVED_MODE = "capture_hidden_mode"
CAPTURE_MODE_CLASS = "CaptureHiddenMode"
_LITERALS = (cst.Integer, cst.Float, cst.Imaginary, cst.SimpleString)


@dataclass(frozen=True)
class Unproven:
    """Why a snapshot is kept: the first window statement that the allowlist does not prove.
    `hazard`: the copy keeps the old object, yet what reaches the forward may still differ."""

    statement: cst.CSTNode
    why: str
    hazard: str | None = None


# What the old method read out of each request when it was called; `init_new` reads them at the forward.
REQUEST_FIELDS = frozenset({"lora_id", "dllm_block_offset", "grammar"})
# The old object's lists built from the requests: the forward read them; a snapshot's copy it does not.
REQUEST_LISTS = frozenset({"lora_ids", "dllm_block_offsets"})
# Methods that change a list in place, and SGLang's batch method that extends `reqs` in place.
_LIST_CHANGES = frozenset({"append", "extend", "insert", "pop", "remove", "clear", "sort", "reverse"})
_REQUEST_LIST_CHANGERS = frozenset({"merge_batch"})
# Builtins that read a list they are handed and never change it.
_LIST_READERS = frozenset({"len", "list", "tuple", "sorted", "enumerate", "zip", "iter", "reversed", "any", "all"})
# Reflection a kept snapshot answers differently from the old object. The snapshot is the runtime's
# `ModelWorkerBatch`, with the old fields (`vars`, `dataclasses.fields` / `asdict` answer alike), whose
# `__class__` is the batch's class (a migrated type test keeps its branch, but a test against another
# class, `type(x)`, and the class's name differ), which also answers the new API's field names
# (`hasattr`, `getattr` with a default, `except AttributeError`), and which `dataclasses.replace`
# rebuilds as its `__class__`.
_REFLECTING_CALLS = frozenset({"type", "isinstance", "issubclass"})
_ATTRIBUTE_PROBES = frozenset({"hasattr", "getattr"})
_REFLECTING_ATTRIBUTES = frozenset({"__class__", "__slots__"})
_SIGNATURE_ATTRIBUTES = frozenset({"__signature__", "__code__", "co_varnames", "__wrapped__"})
# The words a body that reflects on signatures holds (what `reflects_on_signatures` looks for: one of
# these attributes, or a function of `inspect`).
SIGNATURE_WORDS = (*sorted(_SIGNATURE_ATTRIBUTES), "inspect")
_REFLECTING_FUNCTIONS = {
    "dataclasses": frozenset({"replace"}),
    "inspect": frozenset({"signature", "getmembers", "getfullargspec", "getattr_static"}),
}


class _Scan(cst.CSTVisitor):
    found: str | None = None

    def hit(self, what: str) -> None:
        if self.found is None:
            self.found = what


class _RequestChanges(_Scan):
    """Writes of the request fields the old method read; unless `fields_only`, also in-place changes
    of a `.reqs` list (a list method, an item store, `merge_batch`) and, with `handoffs`, the list
    handed to a call or bound to another name (which may change it later)."""

    def __init__(self, fields_only: bool, handoffs: bool = True) -> None:
        super().__init__()
        self.fields_only = fields_only
        self.handoffs = handoffs
        self.skipped: set[int] = set()  # ids of statements not to read (`changes_requests`' window end)

    def on_visit(self, node: cst.CSTNode) -> bool:
        return id(node) not in self.skipped and super().on_visit(node)

    def _target(self, target: cst.BaseExpression) -> None:
        if isinstance(target, cst.Attribute) and target.attr.value in REQUEST_FIELDS:
            self.hit(f"`.{target.attr.value}` is written")
        if isinstance(target, cst.Subscript) and m_reqs(target.value) and not self.fields_only:
            self.hit("an item of `.reqs` is replaced")
        for element in getattr(target, "elements", ()):
            self._target(element.value)

    def visit_AssignTarget(self, node: cst.AssignTarget) -> None:
        self._target(node.target)

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        self._target(node.target)
        if m_reqs(node.target) and not self.fields_only:
            self.hit("`.reqs` is extended in place")

    def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
        self._target(node.target)

    def visit_Del(self, node: cst.Del) -> None:
        self._target(node.target)

    def visit_For(self, node: cst.For) -> None:
        self._target(node.target)

    def visit_Call(self, node: cst.Call) -> None:
        if self.fields_only:
            return
        func = node.func
        reader = isinstance(func, cst.Name) and func.value in _LIST_READERS
        if self.handoffs and not reader and any(may_be_reqs(argument.value) for argument in node.args):
            self.hit("a `.reqs` list is handed to a call, which may change it in place")
        if isinstance(func, cst.Attribute):
            if func.attr.value in _LIST_CHANGES and m_reqs(func.value):
                self.hit(f"`.reqs.{func.attr.value}()` changes the request list in place")
            if func.attr.value in _REQUEST_LIST_CHANGERS:
                self.hit(f"`.{func.attr.value}()` extends a request list in place")

    def visit_Assign(self, node: cst.Assign) -> None:
        if may_be_reqs(node.value) and not self.fields_only and self.handoffs:
            self.hit("a `.reqs` list is bound to another name, which may change it in place")

    def visit_SimpleString(self, node: cst.SimpleString) -> None:
        if node.raw_value in REQUEST_FIELDS:
            self.hit(f"`{node.raw_value}` is named in a string (`setattr`?)")


def m_reqs(node: cst.BaseExpression) -> bool:
    return isinstance(node, cst.Attribute) and node.attr.value == "reqs"


def may_be_reqs(node: cst.BaseExpression) -> bool:
    """Whether an expression's value may be a `.reqs` list itself: the attribute, or an operand a
    `BoolOp` or a conditional returns (`batch.reqs or []`), or an element of a tuple or list built
    around it (unpacked later)."""
    if m_reqs(node):
        return True
    if isinstance(node, cst.BooleanOperation):
        return may_be_reqs(node.left) or may_be_reqs(node.right)
    if isinstance(node, cst.IfExp):
        return may_be_reqs(node.body) or may_be_reqs(node.orelse)
    if isinstance(node, cst.NamedExpr):
        return may_be_reqs(node.value)
    if isinstance(node, (cst.Tuple, cst.List)):
        return any(may_be_reqs(element.value) for element in node.elements)
    return False


def _names(node: cst.BaseExpression, subjects: frozenset[str]) -> bool:
    return isinstance(node, cst.Name) and node.value in subjects


class _Reflection(_Scan):
    """Reflection on the class or attributes of a value held by one of `subjects`."""

    def __init__(self, subjects: frozenset[str]) -> None:
        super().__init__()
        self.subjects = subjects

    def visit_Call(self, node: cst.Call) -> None:
        func = node.func
        first = node.args[0].value if node.args else None
        if not isinstance(first, cst.Name) or first.value not in self.subjects:
            return
        if isinstance(func, cst.Name) and func.value in _REFLECTING_CALLS and not _tests_old_class(node.args[1:2]):
            self.hit(f"`{func.value}({first.value}, ...)`")
        if isinstance(func, cst.Name) and func.value in _ATTRIBUTE_PROBES and not _names_old_field(node.args[1:2]):
            self.hit(f"`{func.value}({first.value}, ...)`")
        if isinstance(func, cst.Name) and func.value in {n for names in _REFLECTING_FUNCTIONS.values() for n in names}:
            self.hit(f"`{func.value}({first.value}, ...)`")
        if isinstance(func, cst.Attribute) and isinstance(func.value, cst.Name):
            if func.attr.value in _REFLECTING_FUNCTIONS.get(func.value.value, ()):
                self.hit(f"`{func.value.value}.{func.attr.value}({first.value})`")

    def visit_Attribute(self, node: cst.Attribute) -> None:
        if node.attr.value in _REFLECTING_ATTRIBUTES and _names(node.value, self.subjects):
            self.hit(f"`{cst.ensure_type(node.value, cst.Name).value}.{node.attr.value}`")

    def visit_Try(self, node: cst.Try) -> None:
        # `try: x.extend_lens / except AttributeError`: the old object raised, the snapshot answers.
        if not any(_catches_attribute_error(handler) for handler in node.handlers):
            return
        for read in (cst.ensure_type(n, cst.Attribute) for n in m.findall(node.body, m.Attribute())):
            if _names(read.value, self.subjects) and read.attr.value not in OLD_OBJECT_FIELDS:
                self.hit(
                    f"`{cst.ensure_type(read.value, cst.Name).value}.{read.attr.value}` under `except AttributeError`"
                )
                return


# The one-shot override fields: a forward reads one and writes its reset value straight after, and a
# kept snapshot keeps its value through that write (runtime.snapshot). A program's own write of the
# reset value may come the same way (`mode = s.capture_hidden_mode` then `s.capture_hidden_mode = None`).
_OVERRIDE_RESETS = {
    "capture_hidden_mode": "None",
    "return_hidden_states_before_norm": "False",
    "seq_lens_cpu_cache": "None",
}


class _OverrideWrites(_Scan):
    """A write of an override field's reset value on a value held by one of `subjects`."""

    def __init__(self, subjects: frozenset[str]) -> None:
        super().__init__()
        self.subjects = subjects

    def visit_Assign(self, node: cst.Assign) -> None:
        for target in node.targets:
            self._write(target.target, node.value)

    def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
        self._write(node.target, node.value)

    def _write(self, target: cst.BaseExpression, value: cst.BaseExpression | None) -> None:
        if not (isinstance(target, cst.Attribute) and target.attr.value in _OVERRIDE_RESETS):
            return
        reset = _OVERRIDE_RESETS[target.attr.value]
        if _names(target.value, self.subjects) and isinstance(value, cst.Name) and value.value == reset:
            self.hit(f"`{cst.ensure_type(target.value, cst.Name).value}.{target.attr.value} = {reset}`")


def writes_override_reset(function: cst.FunctionDef, name: str) -> str | None:
    """The first write in `function` of an override field's reset value on `name`, or of a value
    that may be it, straight after a read of that field (`flag = mwb.f and x` then `mwb.f = flag`):
    the kept snapshot takes such a write for a consuming forward's reset and keeps its value."""
    return _scan(function.body, _OverrideWrites(frozenset({name}))) or _computed_reset(function, name)


def writes_reached(module: cst.Module, function: cst.FunctionDef, name: str) -> tuple[str | None, str | None]:
    """`writes_consumed_field` and `writes_override_reset` of `name` in `function`, or of the
    parameter that takes it in a function `function` hands it to (`handed_to`)."""
    consumed, reset = writes_consumed_field(function, name), writes_override_reset(function, name)
    for callee, parameter in handed_to(module, function, name):
        where = f" in `{callee.name.value}()`, handed `{name}`"
        if consumed is None and (found := writes_consumed_field(callee, parameter)) is not None:
            consumed = found + where
        if reset is None and (found := writes_override_reset(callee, parameter)) is not None:
            reset = found + where
    return consumed, reset


def _may_be_reset(value: cst.BaseExpression, reset: str) -> bool:
    """Whether a written value may be the reset one: anything but another constant (`True`,
    a number, a string, an enum member such as `CaptureHiddenMode.FULL`)."""
    if isinstance(value, cst.Name):
        return value.value not in {"True", "False", "None"} - {reset}
    if isinstance(value, (cst.Integer, cst.Float, cst.SimpleString)):
        return False
    return not m.matches(value, m.Attribute(value=m.Name(m.MatchIfTrue(lambda root: root[:1].isupper()))))


def _computed_reset(function: cst.FunctionDef, name: str) -> str | None:
    for block in m.findall(function, m.IndentedBlock()):
        body = cst.ensure_type(block, cst.IndentedBlock).body
        for index, statement in enumerate(body):
            if not isinstance(statement, cst.SimpleStatementLine) or len(statement.body) != 1:
                continue
            assign = statement.body[0]
            if not isinstance(assign, cst.Assign) or len(assign.targets) != 1:
                continue
            target = assign.targets[0].target
            if not (m.matches(target, m.Attribute(value=m.Name(name))) and isinstance(target, cst.Attribute)):
                continue
            field = target.attr.value
            if field not in _OVERRIDE_RESETS or not _may_be_reset(assign.value, _OVERRIDE_RESETS[field]):
                continue
            read = m.Attribute(value=m.Name(name), attr=m.Name(field))
            before = body[index - 1] if index else None
            if m.findall(assign.value, read) or (before is not None and m.findall(before, read)):
                return f"`{name}.{field} = {cst.Module([]).code_for_node(assign.value)}`"
    return None


def _attribute_writes(function: cst.FunctionDef, name: str, fields: frozenset[str]) -> str | None:
    """The first `name.<field> = ...` (or `+=`, annotated) in `function`, for a field of `fields`."""
    target = m.Attribute(value=m.Name(name), attr=m.Name(value=m.MatchIfTrue(fields.__contains__)))
    for node in m.findall(
        function.body, m.AssignTarget(target=target) | m.AugAssign(target=target) | m.AnnAssign(target=target)
    ):
        if isinstance(node, (cst.AssignTarget, cst.AugAssign, cst.AnnAssign)):
            return f"`{name}.{cst.ensure_type(node.target, cst.Attribute).attr.value}`"
    return None


# What a release's consumers read that the old object had no field for: a write of one on the old
# object set an attribute its forward never read, where the target's reads it on a kept snapshot.
_CONSUMED_NOT_OLD = CONSUMER_READS - OLD_OBJECT_FIELDS


def writes_consumed_field(function: cst.FunctionDef, name: str) -> str | None:
    """A write on `name` of a field the old object lacked and a release's consumer reads."""
    return _attribute_writes(function, name, _CONSUMED_NOT_OLD)


def _tests_old_class(arguments: Sequence[cst.Arg]) -> bool:
    """A type test against the old class: class-references makes it the batch's class, which the
    snapshot's `__class__` answers as the old object answered the old class."""
    return bool(arguments) and OLD_CLASS in cst.Module([]).code_for_node(arguments[0].value)


def _names_old_field(arguments: Sequence[cst.Arg]) -> bool:
    """The probe names, as a literal, a name the snapshot answers as the old object did: one of its
    fields, or a public name that is no field and no consumer's read (both lack it). A private or
    special name (`__slots__`, `_consumer_values`) and a consumer's read (`extend_lens`) it answers
    otherwise."""
    if not arguments or not isinstance(arguments[0].value, cst.SimpleString):
        return False
    name = arguments[0].value.raw_value
    return name in OLD_OBJECT_FIELDS or (
        name.isidentifier() and not name.startswith("_") and name not in CONSUMER_READS
    )


def _catches_attribute_error(handler: cst.ExceptHandler) -> bool:
    if handler.type is None:
        return True
    names = {cst.ensure_type(n, cst.Name).value for n in m.findall(handler.type, m.Name())}
    return bool(names & {"AttributeError", "Exception", "BaseException"})


class _SignatureReflection(_Scan):
    """Reflection on parameter names: a renamed parameter answers it differently."""

    def visit_Attribute(self, node: cst.Attribute) -> None:
        if node.attr.value in _SIGNATURE_ATTRIBUTES:
            self.hit(f"`.{node.attr.value}`")
        if isinstance(node.value, cst.Name) and node.value.value == "inspect":
            if node.attr.value in _REFLECTING_FUNCTIONS["inspect"]:
                self.hit(f"`inspect.{node.attr.value}`")

    def visit_ImportFrom(self, node: cst.ImportFrom) -> None:
        module = cst.Module([]).code_for_node(node.module) if node.module is not None else ""
        if module == "inspect":
            self.hit("`from inspect import ...`")


def _scan(root: cst.CSTNode, visitor: _Scan) -> str | None:
    root.visit(visitor)
    return visitor.found


def changes_request_fields(module: cst.Module) -> str | None:
    """The first write in the module to a request field the old method read when it was called, or
    in-place change of a `.reqs` list (in a closure or a helper as much as in the snapshot's function:
    the forward reads the requests through the list the snapshot shares)."""
    return _scan(module, _RequestChanges(fields_only=False, handoffs=False))


def changes_requests(function: cst.FunctionDef, window_end: cst.CSTNode | None = None) -> str | None:
    """The first place in the function that may change what the old method read from the requests.
    With `window_end` (the last statement of the snapshot's block that uses it), what comes after it
    is left out: by then the forward has read the requests, and a snapshot taken again (a loop) is new."""
    visitor = _RequestChanges(fields_only=False)
    if window_end is not None:
        visitor.skipped = _after(function, window_end)
    return _scan(function.body, visitor)


def window_end(function: cst.FunctionDef, binding: cst.CSTNode, name: str, scope: Scope) -> cst.CSTNode | None:
    """The last statement of `binding`'s block that uses the snapshot `name` binds there, when `name`
    is bound once, used nowhere else, and never kept: each use reads an attribute of it or hands it
    to a call (as the old object was handed to the worker), in the function's own scope (not a
    closure, a lambda or a comprehension). None otherwise: a snapshot kept in a name, a container or
    a closure may reach a forward later."""
    assignments = list(scope.assignments[name])
    block = _block_of(function, binding)
    if len(assignments) != 1 or block is None:
        return None
    uses = assignments[0].references
    if any(use.scope is not scope for use in uses):
        return None
    references = {id(use.node) for use in uses}
    read = m.findall(function.body, m.Attribute(value=m.Name(name)))
    handed = m.findall(function.body, m.Arg(value=m.Name(name), star=""))
    if not references <= {id(cst.ensure_type(n, cst.Attribute).value) for n in read} | {
        id(cst.ensure_type(n, cst.Arg).value) for n in handed
    }:
        return None
    start = next(i for i, s in enumerate(block) if s is binding)
    end: cst.CSTNode = binding
    seen: set[int] = set()
    for statement in block[start + 1 :]:
        found = _node_ids(statement) & references
        if found:
            end, seen = statement, seen | found
    return end if seen == references else None


def _after(function: cst.FunctionDef, statement: cst.CSTNode) -> set[int]:
    """The ids of the statements that follow `statement` in its block and in every block around it,
    up to the function's own (a handler or `finally` of a `try` around it is not among them: it may
    run while the window is open)."""
    after: set[int] = set()

    class _Finder(cst.CSTVisitor):
        def __init__(self) -> None:
            self.path: list[cst.CSTNode] = []
            self.found: list[cst.CSTNode] | None = None

        def on_visit(self, node: cst.CSTNode) -> bool:
            if self.found is not None:
                return False
            self.path.append(node)
            if node is statement:
                self.found = list(self.path)
            return self.found is None

        def on_leave(self, original_node: cst.CSTNode) -> None:
            if self.found is None:
                self.path.pop()

    finder = _Finder()
    function.body.visit(finder)
    path = finder.found or []
    for outer, inner in zip(path, path[1:], strict=False):
        if isinstance(outer, cst.IndentedBlock):
            index = next(i for i, s in enumerate(outer.body) if s is inner)
            after.update(id(s) for s in outer.body[index + 1 :])
    return after


def reflects_on_signatures(module: cst.Module) -> str | None:
    """The first reflection in the module on parameter names."""
    return _scan(module, _SignatureReflection())


def reflection_reached(module: cst.Module, function: cst.FunctionDef, name: str) -> str | None:
    """Reflection on the class or attributes of what `name` holds: in `function`, or in a function
    `function` hands it to (`handed_to`)."""
    found = _scan(function.body, _Reflection(frozenset({name})))
    if found is not None:
        return found
    for callee, parameter in handed_to(module, function, name):
        reached = _scan(callee.body, _Reflection(frozenset({parameter})))
        if reached is not None:
            return f"{reached} in `{callee.name.value}()`, handed `{name}`"
    return None


def handed_to(module: cst.Module, function: cst.FunctionDef, name: str) -> list[tuple[cst.FunctionDef, str]]:
    """The functions of the module `function` hands `name` to, as a positional or keyword argument,
    each with the parameter that takes it: a module function or a function nested in `function`
    called by its name, or a method of any class of the module called as an attribute of that name
    (`self.check(mwb)`, `self.drafter.check(mwb)`: which class's method runs is not resolved, so each
    one of that name counts)."""
    functions: dict[str, list[cst.FunctionDef]] = {}
    methods: dict[str, list[cst.FunctionDef]] = {}
    for statement in module.body:
        if isinstance(statement, cst.FunctionDef):
            functions.setdefault(statement.name.value, []).append(statement)
    for node in m.findall(module, m.ClassDef()):
        for member in cst.ensure_type(node, cst.ClassDef).body.body:
            if isinstance(member, cst.FunctionDef):
                methods.setdefault(member.name.value, []).append(member)
    for node in m.findall(function.body, m.FunctionDef()):
        nested = cst.ensure_type(node, cst.FunctionDef)
        functions.setdefault(nested.name.value, []).append(nested)
    found: list[tuple[cst.FunctionDef, str]] = []
    for call in (cst.ensure_type(node, cst.Call) for node in m.findall(function.body, m.Call())):
        if isinstance(call.func, cst.Name):
            callees, skipped = functions.get(call.func.value, []), 0
        elif isinstance(call.func, cst.Attribute):
            callees, skipped = methods.get(call.func.attr.value, []), 1  # after `self`
        else:
            continue
        for callee in callees:
            positional = [p.name.value for p in (*callee.params.posonly_params, *callee.params.params)][skipped:]
            for index, argument in enumerate(call.args):
                if not _names(argument.value, frozenset({name})) or argument.star:
                    continue
                if argument.keyword is not None:
                    parameter: str | None = argument.keyword.value
                else:
                    parameter = positional[index] if index < len(positional) else None
                if parameter is not None and callee is not function:
                    found.append((callee, parameter))
    return found


def _code(node: cst.CSTNode) -> str:
    """The first line of `node`'s code, not the comments above it, cut at 60 characters."""
    if isinstance(node, (cst.SimpleStatementLine, cst.BaseCompoundStatement)) and node.leading_lines:
        node = node.with_changes(leading_lines=())
    text = cst.Module([]).code_for_node(node).strip().splitlines()
    first = text[0] if text else ""
    return first if len(first) <= 60 else first[:57] + "..."


statement_code = _code


def _block_of(function: cst.FunctionDef, statement: cst.CSTNode) -> Sequence[cst.BaseStatement] | None:
    """The statements of the block that holds `statement` directly."""

    class _Finder(cst.CSTVisitor):
        found: Sequence[cst.BaseStatement] | None = None

        def visit_IndentedBlock(self, node: cst.IndentedBlock) -> bool:
            if any(s is statement for s in node.body):
                self.found = node.body
            return self.found is None

    finder = _Finder()
    function.visit(finder)
    return finder.found


def _plain_assignments(root: cst.CSTNode, name: str) -> list[cst.Assign]:
    """The `name = value` statements under `root` (one target, a plain name)."""
    found = m.findall(root, m.Assign(targets=[m.AssignTarget(m.Name(name))]))
    return [cst.ensure_type(node, cst.Assign) for node in found]


def _node_ids(root: cst.CSTNode) -> set[int]:
    ids: set[int] = set()

    class _All(cst.CSTVisitor):
        def on_visit(self, node: cst.CSTNode) -> bool:
            ids.add(id(node))
            return True

    root.visit(_All())
    return ids


class WindowProof:
    """The allowlist, for one function of one module."""

    def __init__(self, module: cst.Module, function: cst.FunctionDef, scope: Scope, tree: WindowFacts) -> None:
        self.function = function
        self.scope = scope
        self._module = module
        self._tree_breaks = tree.breaks_window()
        self._plain_attributes = tree.plain_self_attributes
        self._equality_defined = tree.equality_defined

    def bound(self, binding: cst.SimpleStatementLine, name: str, receiver: str) -> Unproven | None:
        """None when `name = receiver.get_model_worker_batch()` may read the live batch instead."""
        if self._tree_breaks is not None:
            return Unproven(binding, self._tree_breaks)
        assignments = list(self.scope.assignments[name])
        if len(assignments) != 1:
            return Unproven(binding, f"`{name}` is bound more than once")
        block = _block_of(self.function, binding)
        if block is None:
            return Unproven(binding, f"`{name}` is bound outside a block the tool follows")
        references = {id(reference.node) for reference in assignments[0].references}
        overridden = _attribute_writes(self.function, receiver, frozenset(ONE_SHOT_OVERRIDES))
        if overridden is not None:
            return Unproven(
                binding, f"{overridden} is written in this function: the old method ignored it, `init_new` consumes it"
            )
        # A read the binding does not reach in scope analysis (one earlier in a loop body, which
        # reads the previous iteration's snapshot) would be left as it was.
        if any(id(access.node) not in references for access in self.scope.accesses[name]):
            return Unproven(binding, f"`{name}` is read where this binding does not reach it (a loop)")
        start = next(i for i, s in enumerate(block) if s is binding) + 1
        seen: set[int] = set()
        for statement in block[start:]:
            if seen >= references:
                break
            why = self._statement(statement, name, receiver, None)
            if why is not None:
                return Unproven(statement, f"`{_code(statement)}` {why}")
            seen |= _node_ids(statement) & references
        if not seen >= references:
            return Unproven(binding, f"`{name}` is used outside the statements that follow it")
        return None

    def inline(self, statement: cst.CSTNode, call: cst.Call) -> str | None:
        """None when `ForwardBatch.init_new(receiver.get_model_worker_batch(), ...)` may read the live batch."""
        if self._tree_breaks is not None:
            return self._tree_breaks
        func = call.func
        receiver = func.value if isinstance(func, cst.Attribute) else None
        if not isinstance(receiver, cst.Name):
            return "its receiver is not a plain name"
        overridden = _attribute_writes(self.function, receiver.value, frozenset(ONE_SHOT_OVERRIDES))
        if overridden is not None:
            return f"{overridden} is written in this function: the old method ignored it, `init_new` consumes it"
        return self._statement(statement, None, receiver.value, call)

    def _statement(self, statement: cst.CSTNode, name: str | None, receiver: str, inline: cst.Call | None) -> str | None:  # fmt: skip
        if not isinstance(statement, cst.SimpleStatementLine) or len(statement.body) != 1:
            return f"is not `{CONSUMER_CLASS}.{CONSUMER}(...)` alone"
        if name is not None and self.derived_mode_check(statement, name) is not None:
            return None  # the old method's derivation, read from the batch where it stands (entry 6)
        small = statement.body[0]
        value: cst.BaseExpression | None = None
        if isinstance(small, (cst.Expr, cst.Return)):
            value = small.value
        elif isinstance(small, cst.Assign) and len(small.targets) == 1:
            target = small.targets[0].target
            if not isinstance(target, cst.Name) or target.value in (name, receiver):
                return "assigns to something other than a new local name"
            if target.value in self._declared() or not self._rebinds_only_literals(target.value, small):
                return f"rebinds `{target.value}` (the old value's finalizer would run)"
            value = small.value
        if not (isinstance(value, cst.Call) and self._is_consumer(value)):
            return f"is not `{CONSUMER_CLASS}.{CONSUMER}(...)` alone"
        for argument in value.args:
            if argument.star:
                return "unpacks arguments"
            why = self._argument(argument.value, name, inline)
            if why is not None:
                return why
        return None

    def _argument(self, value: cst.BaseExpression, name: str | None, inline: cst.Call | None) -> str | None:
        if value is inline or isinstance(value, _LITERALS):
            return None
        if isinstance(value, cst.Name):
            if value.value == name or value.value in ("True", "False", "None"):
                return None
            if any(isinstance(a, Assignment) for a in self.scope.assignments[value.value]):
                return None  # a local or a parameter: reading it runs nothing
            return f"reads `{value.value}`, which is not a local"
        if self._plain_self_attribute(value):
            return None
        return f"evaluates `{_code(value)}`, which may run code"

    def derived_mode_check(self, statement: cst.CSTNode, name: str) -> cst.Attribute | None:
        """In `assert <name>.capture_hidden_mode == X` (`!=`, `is`, `is not`; either side), with no
        message or a literal one (`==` and `!=` only where the tree defines no `__eq__`), where X is
        a literal, a local or parameter, or a member of SGLang's enum (`CaptureHiddenMode.LAST`),
        and the module binds SGLang's `CaptureHiddenMode` once, by an import, which nothing in the
        function hides: the `<name>.capture_hidden_mode` node. The rewrite
        reads there what the old method derived (`derived_mode_expression`) from the batch, which
        nothing between the snapshot and this statement changes (the other statements of the window
        are `init_new(...)` alone, which writes neither `return_hidden_states` nor `spec_info`)."""
        if not (isinstance(statement, cst.SimpleStatementLine) and len(statement.body) == 1):
            return None
        check = statement.body[0]
        if not isinstance(check, cst.Assert) or not isinstance(check.test, cst.Comparison):
            return None
        if check.msg is not None and not isinstance(check.msg, cst.SimpleString):
            return None
        comparison = check.test
        # `is` runs nothing; `==` runs the operands' `__eq__`, SGLang's enum's unless the tree
        # defines one (a capture mode of its own, whose `__eq__` may change the batch).
        operators = (cst.Is, cst.IsNot) if self._equality_defined else (cst.Equal, cst.NotEqual, cst.Is, cst.IsNot)
        if len(comparison.comparisons) != 1 or not isinstance(comparison.comparisons[0].operator, operators):
            return None
        left, right = comparison.left, comparison.comparisons[0].comparator
        for mode, other in ((left, right), (right, left)):
            if (
                isinstance(mode, cst.Attribute)
                and mode.attr.value == DERIVED_MODE
                and _names(mode.value, frozenset({name}))
                and self._runs_nothing(other)
                and self.capture_mode_enum() is not None
            ):
                return mode
        return None

    def capture_mode_enum(self) -> str | None:
        """The module's one name for SGLang's `CaptureHiddenMode`, bound by an import alone."""
        module_scope = self.scope.globals
        found = None
        for assignment in module_scope.assignments:
            if not isinstance(assignment, ImportAssignment):
                continue
            qualified = {q.name for q in module_scope.get_qualified_names_for(assignment.name)}
            if any(q.startswith("sglang.") and q.endswith("." + CAPTURE_MODE_CLASS) for q in qualified):
                if found is not None and found != assignment.name:
                    return None
                found = assignment.name
        if found is None or len(list(module_scope.assignments[found])) != 1:
            return None
        # The rewritten assert names it in this function: no local or parameter may hide it.
        if any(a.scope is not module_scope for a in self.scope[found]):
            return None
        return found

    def _runs_nothing(self, value: cst.BaseExpression) -> bool:
        if isinstance(value, _LITERALS) or (isinstance(value, cst.Name) and value.value in ("None", "True", "False")):
            return True
        if isinstance(value, cst.Name):
            return any(isinstance(a, Assignment) for a in self.scope.assignments[value.value])
        if isinstance(value, cst.Attribute) and isinstance(value.value, cst.Name):
            # A member of SGLang's enum (`CaptureHiddenMode.LAST`), a class attribute: no other
            # attribute of an SGLang name, which may hold a descriptor or a module `__getattr__`.
            return value.value.value == self.capture_mode_enum()
        return False

    def _plain_self_attribute(self, value: cst.BaseExpression) -> bool:
        """`self.name`, in a method whose `self` is its first parameter and never rebound, where the
        tree assigns `self.name` and defines no property of that name (analysis/tree_facts.py)."""
        if not (isinstance(value, cst.Attribute) and isinstance(value.value, cst.Name) and value.value.value == "self"):
            return False
        if value.attr.value not in self._plain_attributes:
            return False
        params = self.function.params.params
        if not params or params[0].name.value != "self":
            return False
        if any(_code(d.decorator) in ("staticmethod", "classmethod") for d in self.function.decorators):
            return False
        if self._class_answers_missing_attributes():
            return False
        bindings = list(self.scope.assignments["self"])
        return len(bindings) == 1 and "self" not in self._declared()

    def _class_answers_missing_attributes(self) -> bool:
        """The class around the method binds `__getattr__` (or `__getattribute__`), by `def` or by
        assignment: an attribute of `self` it lacks runs that code when read."""
        owner = self.scope.parent
        return isinstance(owner, ClassScope) and any(
            owner.assignments[hook] for hook in ("__getattr__", "__getattribute__")
        )

    def _bound_to_none(self, assignment: BaseAssignment) -> bool:
        """`ForwardBatch = None`, the fallback of a guarded import: calling through it raises
        AttributeError at the same statement whether the batch or a snapshot is handed over."""
        if not isinstance(assignment, Assignment):
            return False
        return any(
            isinstance(bound.value, cst.Name) and bound.value.value == "None"
            for bound in _plain_assignments(self._module, assignment.name)
            if any(t.target is assignment.node for t in bound.targets)
        )

    def _rebinds_only_literals(self, name: str, assignment: cst.Assign) -> bool:
        """Every other binding of `name` in the function is `name = <literal>`: an old value it
        replaces is a literal or what this statement built (a ForwardBatch), and neither has a finalizer."""
        bindings = list(self.scope.assignments[name])
        if len(bindings) == 1:
            return True
        literal_targets = 0
        for other in _plain_assignments(self.function.body, name):
            if other is assignment:
                continue
            if not (isinstance(other.value, _LITERALS) or _code(other.value) in ("None", "True", "False")):
                return False
            literal_targets += 1
        return literal_targets == len(bindings) - 1

    def _declared(self) -> set[str]:
        """Names the function declares `global` or `nonlocal`."""
        names: set[str] = set()

        class _Finder(cst.CSTVisitor):
            def visit_Global(self, node: cst.Global) -> None:
                names.update(item.name.value for item in node.names)

            def visit_Nonlocal(self, node: cst.Nonlocal) -> None:
                names.update(item.name.value for item in node.names)

        self.function.body.visit(_Finder())
        return names

    def _is_consumer(self, call: cst.Call) -> bool:
        func = call.func
        if not (isinstance(func, cst.Attribute) and func.attr.value == CONSUMER and isinstance(func.value, cst.Name)):
            return False
        assignments = list(self.scope[func.value.value])
        imports = [a for a in assignments if isinstance(a, ImportAssignment)]
        if len(imports) != 1 or not all(a in imports or self._bound_to_none(a) for a in assignments):
            return False
        qualified = {q.name for q in self.scope.get_qualified_names_for(func.value.value)}
        if not any(q.startswith("sglang.") and q.endswith("." + CONSUMER_CLASS) for q in qualified):
            return False
        return True


def derived_mode_expression(batch: cst.BaseExpression, enum: str) -> cst.BaseExpression:
    """What 0.5.12.post1's `get_model_worker_batch()` set the old object's `capture_hidden_mode` to,
    read from `batch`: FULL when it returns hidden states, else its speculative input's mode (NULL
    without one, or when the input is falsy)."""
    source = cst.Module([]).code_for_node(batch)
    # Laid out as black lays it out, one operand to a line.
    return cst.parse_expression(
        f"(\n    {enum}.FULL\n    if {source}.return_hidden_states\n"
        f'    else getattr({source}.spec_info, "capture_hidden_mode", {enum}.NULL)\n'
        f"    if {source}.spec_info\n    else {enum}.NULL\n)"
    )
