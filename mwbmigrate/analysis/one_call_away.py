"""Gates and consumers one call away: what a helper's callers prove about the batch it is handed.

semantic-review judges a read or a write of the old object inside one function. Three of its verdicts
hold one call away too, where the whole tree's call sites prove them (README, "Proof rules"):

- **an extend gate one call up** (MWB105): a helper that reads `extend_seq_lens` with no gate of its
  own, where every call of it in the tree hands it the old object under a test that its forward mode
  is neither decode nor idle (`if mwb.forward_mode.is_extend(): self._extend(mwb)`), read what it
  read before: the old object held `extend_lens` exactly then;
- **the gated view one call away** (MWB105): a helper that only `ForwardBatch.init_new` calls,
  handing it its own batch, reads that batch through the runtime's view core-runtime puts at the
  top of `init_new`, whose extend lengths are None in decode and idle as the old object's were;
- **a consumer one call away** (MWB103): a helper whose every definition in the tree hands its batch
  parameter to SGLang's `ForwardBatch.init_new` once, in its own body's top-level statements, and
  touches no override field of it and hands it nowhere else, consumes an override written on the
  batch right before the call, as `init_new` in the caller would;
- **a reader one call away** (MWB112): a method named as one of `ModelRunner`'s forward-batch takers
  (`sample`), whose every definition in the tree only reads, from its second parameter, fields the
  old method copied from the batch attribute of the same name, reads on the batch what it read on
  the old object. Here what matters is which body a call reaches, not who else calls it: a name
  the pre-pass did not parse may still be called elsewhere as a method (`.sample(`), but not
  defined, bound or spelled there.

Each holds only where the helper is reached by its own name alone: it is never read as a value (a
table, a callback, `getattr` with its name in a string), never assigned, never imported under
another name, and never named in a module the pre-pass did not parse. The facts come from the modules that name the old API, read with `ast` in
the pre-pass (analysis/isolation.py's `scan_callers`); the identifiers of every other module rule out
a helper named there.
"""

from __future__ import annotations

import ast
import functools
import re
from collections.abc import Collection, Container, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Protocol

from mwbmigrate.analysis.names import ONE_SHOT_OVERRIDES
from mwbmigrate.analysis.release_table import REMOVED_ATTRIBUTES
from mwbmigrate.runtime.snapshot import OLD_METHOD_READS

# `get_model_worker_batch` set the extend lengths to None exactly when `forward_mode.is_decode_or_idle()`.
# (0.5.12.post1's `ForwardMode`: each of these is true in no decode or idle mode.)
EXTEND_MODE_TESTS = frozenset(
    {
        "is_extend",
        "is_extend_or_draft_extend_or_mixed",
        "is_target_verify",
        "is_prefill",
        "is_draft_extend",
        "is_draft_extend_v2",
        "is_mixed",
        "is_split_prefill",
        "is_dllm_extend",
    }
)
_CONSUMER = ("ForwardBatch", "init_new")
# `ModelRunner.sample(logits_output, forward_batch)` and `compute_logprobs_only(...)` take the forward
# batch second (after `self`); the old object used to be handed there (semantic-review, MWB112).
FORWARD_BATCH_CALLEES = frozenset({"sample", "compute_logprobs_only"})
FORWARD_BATCH_POSITION = 1
# The fields the live batch holds as the old object held them: 0.5.12.post1's method copied each from
# the batch attribute of the same name, and every target's `ScheduleBatch` still has it (a fork's own
# copied fields are added by the caller). Not `reqs`: the target's `init_new` reads each request's
# values at the forward, where the old object held them as of the snapshot.
_LEFT_THE_BATCH = frozenset(
    {"token_type_ids", "dimensions", "return_pooled_hidden_states", "multi_item_delimiter_indices", "reqs"}
    | {name for name, (_, classes) in REMOVED_ATTRIBUTES.items() if "ScheduleBatch" in classes}
)
COPIED_FIELDS = frozenset(name for name, source in OLD_METHOD_READS if source == name) - _LEFT_THE_BATCH


class UnparsedNames(Protocol):
    """The identifiers of the modules the pre-pass does not parse (analysis/isolation.py)."""

    def __contains__(self, name: object) -> bool: ...

    def bound(self, name: str) -> bool:
        """`name` occurs there other than as a method call (`.name(`): defined, bound, read or spelled."""
        ...


@dataclass(frozen=True)
class BatchParameter:
    """Where a helper takes the batch: its name, and its index among the positional parameters a
    caller passes (after `self` for a method, which is called as an attribute)."""

    name: str
    index: int
    method: bool


@dataclass(frozen=True)
class OneCallAway:
    """`extend_gated`: helpers every call of which hands the batch parameter an extend-gated old
    object. `consumers`: helpers that consume the overrides on the batch they are handed."""

    extend_gated: Mapping[str, BatchParameter] = field(default_factory=dict)
    consumers: Mapping[str, BatchParameter] = field(default_factory=dict)
    # Helpers every call of which is in `ForwardBatch.init_new`, handed its batch: core-runtime makes
    # that batch the runtime's view there, whose extend lengths are gated as the old object's were.
    through_view: Mapping[str, BatchParameter] = field(default_factory=dict)
    # Forward-batch takers by name whose every definition in the tree is a method that only reads, from
    # its parameter at `FORWARD_BATCH_POSITION`, fields the live batch holds as the old object did.
    batch_readers: Mapping[str, BatchParameter] = field(default_factory=dict)
    # Functions by name with a definition that writes an attribute of a parameter, or hands it to such
    # a writer, where no definition of that name takes the old object (a parameter named
    # `model_worker_batch` or annotated with the class, judged in its own body): the parameters
    # written, by position and name.
    parameter_writers: Mapping[str, frozenset[BatchParameter]] = field(default_factory=dict)
    # Functions by name that some caller in the tree hands a name it uses again after the call, reading
    # an override field of it or using it whole (later in the caller, in a loop around the call, or in
    # the caller's own callers where it hands on its parameter), or that is read as a value (its
    # callers unknown): an override a call of one writes on the object it is handed, the caller may read.
    read_after_the_call: frozenset[str] = frozenset()


def passed_at(call_args: list[object], keywords: Mapping[str, object], parameter: BatchParameter) -> object | None:
    """What a call hands `parameter`: the positional argument at its index or the keyword of its name."""
    if parameter.name in keywords:
        return keywords[parameter.name]
    return call_args[parameter.index] if parameter.index < len(call_args) else None


def one_call_away(
    trees: Iterable[ast.Module],
    takes_old: Mapping[str, str],
    named_elsewhere: UnparsedNames,
    copied_fields: Collection[str] = COPIED_FIELDS,
) -> OneCallAway:
    """The facts, from the parsed modules; `takes_old`: each helper taking the old object, by name, to
    its parameter that does; `named_elsewhere`: every identifier of the modules not parsed;
    `copied_fields`: the fields the live batch holds as the old object did."""
    trees = list(trees)
    definitions: dict[str, list[tuple[ast.FunctionDef | ast.AsyncFunctionDef, str | None, ast.Module]]] = {}
    escapes: set[str] = set()
    calls: dict[str, list[tuple[ast.Call, ast.FunctionDef | ast.AsyncFunctionDef | None]]] = {}
    for tree in trees:
        _collect(tree, definitions, escapes, calls)
    owners = {id(function): owner for defined in definitions.values() for function, owner, _ in defined}
    viewing = {
        id(function)
        for function, owner, module in definitions.get(_CONSUMER[1], [])
        if owner == _CONSUMER[0] and _puts_the_view(module)
    }
    # Once per module and per caller, asked of many helpers (these scopes keep no tree past the call).
    forward_batch_from_sglang = functools.cache(_forward_batch_from_sglang)
    caller_facts = functools.cache(_Caller)
    gated: dict[str, BatchParameter] = {}
    consumers: dict[str, BatchParameter] = {}
    viewed: dict[str, BatchParameter] = {}
    readers: dict[str, BatchParameter] = {}
    for name, defined in definitions.items():
        if name in escapes or name not in calls or any(_runs_otherwise(function) for function, _, _ in defined):
            continue
        if name in FORWARD_BATCH_CALLEES:
            reader = _batch_reader(defined, frozenset(copied_fields))
            if reader is not None and not _spelled_in_strings(trees, name) and not named_elsewhere.bound(name):
                readers[name] = reader
        if name.encode() in named_elsewhere:  # the costliest test last: it reads the unparsed modules
            continue
        parameters = {
            _batch_parameter(function, owner is not None, takes_old.get(name)) for function, owner, _ in defined
        }
        if len(parameters) != 1:
            continue
        parameter = parameters.pop()
        if parameter is None:
            continue
        sites = calls[name]
        if any(isinstance(call.func, ast.Attribute) != parameter.method for call, _ in sites):
            continue
        if name in takes_old and all(
            caller is not None and _gated_call(call, caller_facts(caller), parameter) for call, caller in sites
        ):
            gated[name] = parameter
        if name in takes_old and all(
            _viewed_call(call, caller, parameter, owners) and id(caller) in viewing for call, caller in sites
        ):
            viewed[name] = parameter
        if all(
            forward_batch_from_sglang(module) and _consumes(function, parameter.name) for function, _, module in defined
        ):
            consumers[name] = parameter
    return OneCallAway(
        gated,
        consumers,
        viewed,
        readers,
        _parameter_writers(definitions, takes_old),
        _read_after(calls, escapes, definitions),
    )


def _read_after(
    calls: Mapping[str, list[tuple[ast.Call, ast.FunctionDef | ast.AsyncFunctionDef | None]]],
    escapes: Container[str],
    defined: Iterable[str],
) -> frozenset[str]:
    """`OneCallAway.read_after_the_call` of the functions `defined` in the parsed modules, to a fixed
    point over callers that hand on their parameter."""
    definitions_named = set(defined)
    found = {name for name in definitions_named if name in escapes}
    handing_on: dict[str, set[str]] = {}  # callee -> callers that hand it their own parameter
    uses = functools.cache(_NameUses)
    for name, sites in calls.items():
        if name not in definitions_named:
            continue
        for call, caller in sites:
            if caller is None:
                continue
            handed = {a.id for a in [*call.args, *(k.value for k in call.keywords)] if isinstance(a, ast.Name)}
            if not handed:
                continue
            if uses(caller).read_again(call, handed):
                found.add(name)
            parameters = {a.arg for a in (*caller.args.posonlyargs, *caller.args.args, *caller.args.kwonlyargs)}
            if handed & parameters:
                handing_on.setdefault(name, set()).add(caller.name)
    changed = True
    while changed:
        changed = False
        for name, callers in handing_on.items():
            if name not in found and callers & found:
                found.add(name)
                changed = True
    return frozenset(found)


class _NameUses:
    """Where a function uses each name in a way that may observe an override field written on what
    it holds, and its loops, read once per function. A read of another attribute of it cannot (`x.seq_lens`);
    a read of an override field can, and so can any use of it whole (handed to a call, a forward
    included, stored, returned)."""

    def __init__(self, function: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        self.reads: dict[str, list[tuple[int, int]]] = {}
        self.loops: list[ast.AST] = []
        other_fields = {
            id(node.value)
            for node in ast.walk(function)
            if isinstance(node, ast.Attribute) and node.attr not in ONE_SHOT_OVERRIDES
        }
        for node in ast.walk(function):
            if isinstance(node, ast.Name) and id(node) not in other_fields:
                self.reads.setdefault(node.id, []).append((node.lineno, node.col_offset))
            elif isinstance(node, (ast.For, ast.AsyncFor, ast.While)):
                self.loops.append(node)

    def read_again(self, call: ast.Call, names: set[str]) -> bool:
        """One of `names` is used so after `call` ends, or `call` sits in a loop."""
        end = (call.end_lineno or call.lineno, call.end_col_offset or 0)
        if any(position >= end for name in names for position in self.reads.get(name, ())):
            return True
        start = (call.lineno, call.col_offset)
        return any(
            (loop.lineno, loop.col_offset) <= start and end <= (loop.end_lineno or 0, loop.end_col_offset or 0)
            for loop in self.loops
            if isinstance(loop, (ast.For, ast.AsyncFor, ast.While))
        )


def _parameter_writers(
    definitions: Mapping[str, list[tuple[ast.FunctionDef | ast.AsyncFunctionDef, str | None, ast.Module]]],
    takes_old: Mapping[str, str],
) -> dict[str, frozenset[BatchParameter]]:
    """`OneCallAway.parameter_writers`, to a fixed point over hand-offs between definitions."""
    writers: dict[str, set[BatchParameter]] = {}
    changed = True
    while changed:
        changed = False
        for name, defined in definitions.items():
            if name in takes_old:
                continue  # a definition of that name takes the old object: the call may reach it, judged there
            for function, owner, _ in defined:
                positional = [a.arg for a in (*function.args.posonlyargs, *function.args.args)]
                method = owner is not None
                if method:
                    positional = positional[1:]
                for index, parameter in enumerate(positional):
                    written = BatchParameter(parameter, index, method)
                    if written in writers.get(name, ()):
                        continue
                    if _writes(function, parameter, writers):
                        writers.setdefault(name, set()).add(written)
                        changed = True
    return {name: frozenset(found) for name, found in writers.items()}


def _writes(
    function: ast.FunctionDef | ast.AsyncFunctionDef, name: str, writers: Mapping[str, set[BatchParameter]]
) -> bool:
    """`function` writes or deletes an attribute of its parameter `name` (`p.x = ...`, `p.x += ...`,
    `setattr(p, ...)`), or hands `p` to a call of a known writer at a written place."""
    for node in ast.walk(function):
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == name:
            if isinstance(node.ctx, (ast.Store, ast.Del)):
                return True
        if not isinstance(node, ast.Call):
            continue
        callee = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", None)
        arguments = [a for a in node.args if not isinstance(a, ast.Starred)]
        if callee in ("setattr", "delattr") and arguments and isinstance(arguments[0], ast.Name):
            if arguments[0].id == name:
                return True
        for written in writers.get(callee or "", ()):
            passed = passed_at(list(arguments), {k.arg: k.value for k in node.keywords if k.arg}, written)
            if isinstance(passed, ast.Name) and passed.id == name:
                return True
    return False


def _batch_reader(
    defined: list[tuple[ast.FunctionDef | ast.AsyncFunctionDef, str | None, ast.Module]], fields: frozenset[str]
) -> BatchParameter | None:
    """The parameter at `FORWARD_BATCH_POSITION` of every definition, when each is a method (not static
    or a class method) that names it alike and only reads `fields` of it."""
    parameters = set()
    for function, owner, _ in defined:
        positional = [a.arg for a in (*function.args.posonlyargs, *function.args.args)]
        if owner is None or len(positional) <= FORWARD_BATCH_POSITION + 1:
            return None
        name = positional[FORWARD_BATCH_POSITION + 1]  # after `self`
        if not _reads_only(function, name, fields):
            return None
        parameters.add(BatchParameter(name, FORWARD_BATCH_POSITION, True))
    return parameters.pop() if len(parameters) == 1 else None


def _spelled_in_strings(trees: list[ast.Module], name: str) -> bool:
    """`name` is a word of a string that is no docstring: source `exec` may run, or a name `getattr` reads."""
    word = re.compile(rf"\b{re.escape(name)}\b")
    for tree in trees:
        docstrings = {
            id(node.body[0].value)
            for node in ast.walk(tree)
            if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))
            and node.body
            and isinstance(node.body[0], ast.Expr)
        }
        for node in ast.walk(tree):
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docstrings:
                if word.search(node.value):
                    return True
    return False


def _reads_only(function: ast.FunctionDef | ast.AsyncFunctionDef, name: str, fields: frozenset[str]) -> bool:
    """Every use of the parameter `name` in `function` reads one of `fields` of it, then and there:
    no write or deletion of an attribute, no other attribute, no use of it whole (handed on, compared,
    bound again), and none in a nested function, lambda, class or generator, which may run later."""
    read: set[int] = set()
    for node in ast.walk(function):
        nested = isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef, ast.GeneratorExp))
        if nested and node is not function and any(isinstance(n, ast.Name) and n.id == name for n in ast.walk(node)):
            return False
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == name:
            if not isinstance(node.ctx, ast.Load) or node.attr not in fields:
                return False
            read.add(id(node.value))
    return not any(isinstance(n, ast.Name) and n.id == name and id(n) not in read for n in ast.walk(function))


def _runs_otherwise(function: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    """A call that does not run the body then and there, once: a coroutine or a generator (the body
    runs when awaited or iterated, after what follows the call), or a decorated definition (the
    decorator decides when, and how often, the body runs)."""
    if isinstance(function, ast.AsyncFunctionDef) or function.decorator_list:
        return True
    return any(isinstance(node, (ast.Yield, ast.YieldFrom, ast.Await)) for node in ast.walk(function))


def _batch_parameter(
    function: ast.FunctionDef | ast.AsyncFunctionDef, method: bool, old_parameter: str | None
) -> BatchParameter | None:
    positional = [a.arg for a in (*function.args.posonlyargs, *function.args.args)]
    if method:
        if not positional or any(
            _decorator_name(d) in ("staticmethod", "classmethod") for d in function.decorator_list
        ):
            return None
        positional = positional[1:]
    name = old_parameter if old_parameter is not None else (positional[0] if positional else None)
    if name is None or name not in positional:
        return None
    return BatchParameter(name, positional.index(name), method)


def _decorator_name(node: ast.expr) -> str:
    return node.id if isinstance(node, ast.Name) else node.attr if isinstance(node, ast.Attribute) else ""


def _collect(
    tree: ast.Module,
    definitions: dict[str, list[tuple[ast.FunctionDef | ast.AsyncFunctionDef, str | None, ast.Module]]],
    escapes: set[str],
    calls: dict[str, list[tuple[ast.Call, ast.FunctionDef | ast.AsyncFunctionDef | None]]],
) -> None:
    """Every definition (a method: defined in a class body), every call by name with the function it
    is in, and every name that is read as a value, assigned or spelled in a string."""
    callee_nodes: set[int] = set()
    pending: list[tuple[ast.AST, ast.AST | None, ast.FunctionDef | ast.AsyncFunctionDef | None]] = [(tree, None, None)]
    while pending:
        node, parent, function = pending.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            owner = parent.name if isinstance(parent, ast.ClassDef) else None
            definitions.setdefault(node.name, []).append((node, owner, tree))
            function = node
        elif isinstance(node, ast.Call):
            name = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", None)
            if name is not None:
                calls.setdefault(name, []).append((node, function))
                callee_nodes.add(id(node.func))
        elif isinstance(node, ast.Name) and id(node) not in callee_nodes:
            escapes.add(node.id)
        elif isinstance(node, ast.Attribute) and id(node) not in callee_nodes:
            escapes.add(node.attr)
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value.isidentifier():
            escapes.add(node.value)
        elif isinstance(node, ast.alias) and node.asname is not None:
            escapes.add(node.name.rsplit(".", 1)[-1])  # called under another name from here on
            escapes.add(node.asname)  # another function bound under this name
        elif isinstance(node, ast.keyword) and node.arg is not None:
            escapes.add(node.arg)  # `type(..., dict(name=f))`, `__init_subclass__(name=f)`, `setattr` by keyword
        for child in ast.iter_child_nodes(node):
            pending.append((child, node, function))


class _Caller:
    """What the gate proofs read of one calling function, read once: the tests of the `if` bodies
    around each call, and where each name is bound."""

    def __init__(self, function: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        self.function = function
        self.tests = _enclosing_tests(function)
        self.stores: dict[str, list[ast.Name]] = {}
        self.assigned: dict[str, list[ast.expr]] = {}
        for node in ast.walk(function):
            if isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load):
                self.stores.setdefault(node.id, []).append(node)
            if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
                self.assigned.setdefault(node.targets[0].id, []).append(node.value)

    def forward_mode_locals(self, name: str) -> set[str]:
        """Locals bound once in the function, by an assignment of `name.forward_mode`."""
        return {
            local
            for local, values in self.assigned.items()
            if len(values) == 1 and len(self.stores.get(local, ())) == 1 and _is_forward_mode(values[0], name)
        }


def _gated_call(call: ast.Call, caller: _Caller, parameter: BatchParameter) -> bool:
    """The call hands the parameter a plain name, inside the body of an `if` whose test proves that
    name's forward mode is neither decode nor idle."""
    args: list[object] = list(call.args)
    if any(isinstance(a, ast.Starred) for a in call.args) or any(k.arg is None for k in call.keywords):
        return False
    passed = passed_at(args, {k.arg: k.value for k in call.keywords if k.arg is not None}, parameter)
    if not isinstance(passed, ast.Name):
        return False
    tests = caller.tests.get(id(call), [])
    # Bound only before the test, if at all: a name bound again inside the `if` holds another value.
    stores = caller.stores.get(passed.id, [])
    if len(stores) > 1 or any(store.lineno >= min((test.lineno for test in tests), default=0) for store in stores):
        return False
    modes = caller.forward_mode_locals(passed.id)
    return any(_proves_extend(test, passed.id, modes) for test in tests)


def _puts_the_view(module: ast.Module) -> bool:
    """core-runtime puts the view at the top of this module's `ForwardBatch.init_new`: the module
    names `CaptureHiddenMode` and the old class (its `applies_to`)."""
    names = {n.id for n in ast.walk(module) if isinstance(n, ast.Name)}
    names |= {a.asname or a.name for n in ast.walk(module) if isinstance(n, ast.ImportFrom) for a in n.names}
    return {"CaptureHiddenMode", "ModelWorkerBatch"} <= names


def _viewed_call(
    call: ast.Call,
    caller: ast.FunctionDef | ast.AsyncFunctionDef | None,
    parameter: BatchParameter,
    owners: Mapping[int, str | None],
) -> bool:
    """The call is in `ForwardBatch.init_new` and hands the parameter `init_new`'s own batch
    parameter, which nothing in `init_new` binds again."""
    if caller is None or caller.name != _CONSUMER[1] or owners.get(id(caller)) != _CONSUMER[0]:
        return False
    positional = [a.arg for a in (*caller.args.posonlyargs, *caller.args.args)]
    if len(positional) < 2 or any(isinstance(a, ast.Starred) for a in call.args):
        return False
    batch = positional[1]  # after `cls`
    passed = passed_at(list(call.args), {k.arg: k.value for k in call.keywords if k.arg is not None}, parameter)
    if not (isinstance(passed, ast.Name) and passed.id == batch):
        return False
    return not any(
        isinstance(node, ast.Name) and node.id == batch and isinstance(node.ctx, (ast.Store, ast.Del))
        for node in ast.walk(caller)
    )


def _is_forward_mode(node: ast.AST, name: str) -> bool:
    return (
        isinstance(node, ast.Attribute)
        and node.attr == "forward_mode"
        and isinstance(node.value, ast.Name)
        and node.value.id == name
    )


def _proves_extend(test: ast.expr, name: str, modes: set[str]) -> bool:
    """`test` being true proves `name`'s forward mode was neither decode nor idle."""
    if isinstance(test, ast.BoolOp):
        proofs = [_proves_extend(value, name, modes) for value in test.values]
        return any(proofs) if isinstance(test.op, ast.And) else all(proofs)
    negated = isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not)
    call = test.operand if isinstance(test, ast.UnaryOp) and negated else test
    if not isinstance(call, ast.Call) or not isinstance(call.func, ast.Attribute):
        return False
    method = call.func.attr
    if (method == "is_decode_or_idle") != negated or (not negated and method not in EXTEND_MODE_TESTS):
        return False
    receiver = call.func.value
    return _is_forward_mode(receiver, name) or (isinstance(receiver, ast.Name) and receiver.id in modes)


def _enclosing_tests(function: ast.FunctionDef | ast.AsyncFunctionDef) -> dict[int, list[ast.expr]]:
    """For each call in the function, by id: the tests of the `if` statements whose body (not
    `else`) holds it (not through a nested function or class: those may run anywhere)."""
    found: dict[int, list[ast.expr]] = {}
    pending: list[tuple[ast.AST, list[ast.expr]]] = [(child, []) for child in ast.iter_child_nodes(function)]
    while pending:
        node, tests = pending.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
            continue
        if isinstance(node, ast.Call):
            found[id(node)] = tests
        if isinstance(node, ast.If):
            pending.append((node.test, tests))
            pending.extend((child, [*tests, node.test]) for child in node.body)
            pending.extend((child, tests) for child in node.orelse)
            continue
        pending.extend((child, tests) for child in ast.iter_child_nodes(node))
    return found


def _consumes(function: ast.FunctionDef | ast.AsyncFunctionDef, name: str) -> bool:
    """`function` hands its parameter `name` to SGLang's `ForwardBatch.init_new` in one of its own
    top-level statements, never binds it again, and otherwise only reads and writes attributes of it
    that are no override field (the module's `ForwardBatch` is SGLang's: `_forward_batch_from_sglang`)."""
    consuming = [
        (index, call)
        for index, call in enumerate(map(_init_new_call, function.body))
        if call is not None and _hands(call, name)
    ]
    if len(consuming) != 1:
        return False
    index, call = consuming[0]
    if any(_returns(statement) for statement in function.body[:index]):
        return False  # a path that returns or raises before `init_new` leaves the override on the batch
    allowed = {id(call.args[0])}
    for node in ast.walk(function):
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == name:
            if node.attr in ONE_SHOT_OVERRIDES:
                return False
            allowed.add(id(node.value))
    # Anything else is the batch bound again, handed on or read as a whole.
    return not any(isinstance(n, ast.Name) and n.id == name and id(n) not in allowed for n in ast.walk(function))


def _returns(statement: ast.stmt) -> bool:
    """A `return` or a `raise` in `statement`, outside the functions and classes it defines: a caller
    that catches what it raises goes on with the override left on the batch."""
    pending: list[ast.AST] = [statement]
    while pending:
        node = pending.pop()
        if isinstance(node, (ast.Return, ast.Raise)):
            return True
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
            pending.extend(ast.iter_child_nodes(node))
    return False


def _init_new_call(statement: ast.stmt) -> ast.Call | None:
    """The call of a statement that is `ForwardBatch.init_new(...)` alone: an expression, a `return`,
    or an assignment to plain names."""
    if isinstance(statement, ast.Assign) and not all(isinstance(t, ast.Name) for t in statement.targets):
        return None
    value = statement.value if isinstance(statement, (ast.Expr, ast.Assign, ast.Return)) else None
    if not isinstance(value, ast.Call) or not isinstance(value.func, ast.Attribute):
        return None
    owner = value.func.value
    return value if isinstance(owner, ast.Name) and (owner.id, value.func.attr) == _CONSUMER else None


def _hands(call: ast.Call, name: str) -> bool:
    return (
        bool(call.args)
        and isinstance(call.args[0], ast.Name)
        and call.args[0].id == name
        and not any(isinstance(a, ast.Starred) for a in call.args)
    )


def _forward_batch_from_sglang(module: ast.Module) -> bool:
    """`ForwardBatch` is bound in the module by imports from SGLang alone."""
    imported = False
    for node in ast.walk(module):
        if isinstance(node, ast.ImportFrom):
            for alias in node.names:
                if (alias.asname or alias.name) == _CONSUMER[0]:
                    if not (node.module or "").startswith("sglang.") or alias.name != _CONSUMER[0]:
                        return False
                    imported = True
        elif isinstance(node, ast.Name) and node.id == _CONSUMER[0] and isinstance(node.ctx, ast.Store):
            return False
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and node.name == _CONSUMER[0]:
            return False
    return imported
