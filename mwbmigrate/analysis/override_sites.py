"""Where a one-shot override may sit: the one "is this movable" judgement of the project.

SGLang 0.5.13 writes an override on the `ScheduleBatch` on the line right before the call that
consumes it (`ForwardBatch.init_new(batch, ...)`, `forward_batch_generation(batch, ...)`). The
override-moves codemod moves migrated code into that shape, and semantic-review decides from the
same plans which sites it must still report. Both read a block of statements and get the same
answer: semantic-review on the code before the renames (`batch_names` then holds every name of the
object, `model_worker_batch` and its receiver alike, and `deleted` the bindings worker-batch-calls
drops), override-moves on the migrated code.

Three plans, each refused with a reason unless every condition holds:

    write   `batch.F = E` (F a one-shot override) whose consuming call is the first later statement of
            the same block that consumes anything, takes `batch`, and is the function's only consuming
            call after the write: it may move to the line before that call when `E` calls nothing and
            reads neither `batch` nor anything the statements in between rebind or assign attributes
            on, and those statements neither read nor write `F` (attribute or string), consume, hand
            `batch` to a call (`f(batch)`, `batch.m()`), rebind `batch`, nor leave the block
            (`return`, `break`, `continue`, `yield`, `await`).
    assert  `assert batch.capture_hidden_mode == M` (the old object's derived value, read too early
            now) followed the same way by `forward_batch = ForwardBatch.init_new(batch, ...)`: it may
            read `forward_batch.capture_hidden_mode` after that line, on the same conditions, and
            nothing in between may assign an attribute of `batch` (which would change the mode).
    forward `forward_batch.return_hidden_states_before_norm = V` right after
            `forward_batch = ForwardBatch.init_new(batch, ...)`: it may become
            `batch.return_hidden_states_before_norm = V` before that line when `V` calls nothing and
            reads neither name (it is then evaluated before the forward batch exists).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Sequence

import libcst as cst
import libcst.matchers as m

from mwbmigrate.analysis.calls import callee_name
from mwbmigrate.analysis.names import NEW_PARAMETER, OLD_PARAMETER, ONE_SHOT_OVERRIDES
from mwbmigrate.analysis.old_api import CAPTURE_MODE_HELPER, OVERRIDE_ARGUMENT, SNAPSHOT_HELPER
from mwbmigrate.analysis.scopes import OwnScopeVisitor
from mwbmigrate.analysis.worker_kinds import WORKER_METHOD

CONSUMING_CALLS = frozenset({"init_new", "forward_batch_generation", "forward_batch_embedding"})

# The codemods whose rewrites semantic-review predicts, as (CODE, NAME): each declares itself with
# these, and semantic-review judges a site by what they will do to it, without importing them.
OVERRIDE_MOVES = ("MWB014", "override-moves")
CORE_RUNTIME = ("MWB013", "core-runtime")
# semantic-review's refusals of an override write or a derived read: override-moves leaves a line
# with one of these findings where it is (the verdict was reached before the renames).
UNMOVABLE_CODES = ("MWB103", "MWB104", "MWB116")


def codemod_runs(codemod: tuple[str, str], disabled: frozenset[str]) -> bool:
    """Whether the codemod (CODE, NAME) runs when `disabled` (codes and names) are off."""
    return not any(key in disabled for key in codemod)


def reads_through_view(class_name: str | None, function_name: str) -> bool:
    """core-runtime makes `ForwardBatch.init_new` read derived and gated values through the view."""
    return class_name == "ForwardBatch" and function_name == "init_new"


DERIVED_MODE = "capture_hidden_mode"
# The override upstream moved from the forward batch (written after init_new) onto the batch.
FORWARD_BATCH_OVERRIDE = "return_hidden_states_before_norm"


def is_consuming_call(call: cst.Call) -> bool:
    return callee_name(call) in CONSUMING_CALLS


def consumed_batch(call: cst.Call) -> str | None:
    """The name a consuming call takes its batch from: first positional argument or `batch=`."""
    for argument in call.args:
        keyword = argument.keyword.value if argument.keyword is not None else None
        if argument.star or (keyword is not None and keyword not in (NEW_PARAMETER, OLD_PARAMETER)):
            continue
        return argument.value.value if isinstance(argument.value, cst.Name) else None
    return None


def _is_init_new(call: cst.Call) -> bool:
    return m.matches(
        call.func,
        m.Attribute(value=m.Name("ForwardBatch") | m.Attribute(attr=m.Name("ForwardBatch")), attr=m.Name("init_new")),
    )


@dataclass(frozen=True)
class OverrideWrite:
    receiver: str
    field: str
    value: cst.BaseExpression


def override_write(statement: cst.CSTNode, fields: Sequence[str] = ONE_SHOT_OVERRIDES) -> OverrideWrite | None:
    """`name.F = E` alone on its line, F one of `fields`."""
    if not isinstance(statement, cst.SimpleStatementLine) or len(statement.body) != 1:
        return None
    assign = statement.body[0]
    if not isinstance(assign, cst.Assign) or len(assign.targets) != 1:
        return None
    target = assign.targets[0].target
    if isinstance(target, cst.Attribute) and isinstance(target.value, cst.Name) and target.attr.value in fields:
        return OverrideWrite(target.value.value, target.attr.value, assign.value)
    return None


def init_new_binding(statement: cst.CSTNode) -> tuple[str, str] | None:
    """(forward batch name, batch name) of `forward_batch = ForwardBatch.init_new(batch, ...)`."""
    if not isinstance(statement, cst.SimpleStatementLine) or len(statement.body) != 1:
        return None
    assign = statement.body[0]
    if (
        not isinstance(assign, cst.Assign)
        or len(assign.targets) != 1
        or not isinstance(assign.targets[0].target, cst.Name)
    ):
        return None
    if not isinstance(assign.value, cst.Call) or not _is_init_new(assign.value):
        return None
    batch = consumed_batch(assign.value)
    return (assign.targets[0].target.value, batch) if batch is not None else None


# -- what an expression reads, what statements do ------------------------------------------------
class _Reads(cst.CSTVisitor):
    def __init__(self) -> None:
        self.names: set[str] = set()
        self.effect: str | None = None  # why evaluating it later (or earlier) is not the same

    def visit_Name(self, node: cst.Name) -> None:
        self.names.add(node.value)

    def visit_Attribute(self, node: cst.Attribute) -> bool:
        node.value.visit(self)
        return False  # `.attr` is no name read

    def visit_Call(self, node: cst.Call) -> None:
        self.effect = "it calls a function"

    def visit_Await(self, node: cst.Await) -> None:
        self.effect = "it awaits"

    def visit_Yield(self, node: cst.Yield) -> None:
        self.effect = "it yields"

    def visit_NamedExpr(self, node: cst.NamedExpr) -> None:
        self.effect = "it binds a name"

    def visit_Lambda(self, node: cst.Lambda) -> bool:
        return False


def expression_reads(expression: cst.BaseExpression) -> tuple[set[str], str | None]:
    """(names the expression reads, why its evaluation cannot move: None when it calls nothing)."""
    reads = _Reads()
    expression.visit(reads)
    return reads.names, reads.effect


def _root(expression: cst.BaseExpression) -> str | None:
    while isinstance(expression, (cst.Attribute, cst.Subscript)):
        expression = expression.value
    return expression.value if isinstance(expression, cst.Name) else None


class _Effects(cst.CSTVisitor):
    """What a run of statements does that an override moving past it could notice."""

    def __init__(self) -> None:
        self.bound: set[str] = set()
        self.assigned_attribute_of: set[str] = set()
        self.attributes: set[str] = set()  # attribute names read or written, and string constants (getattr)
        self.handed_to_calls: set[str] = set()  # names passed to a call, or whose own method is called
        self.consuming = 0
        self.leaves: str | None = None
        self._loops = 0

    def _bind(self, target: cst.BaseExpression) -> None:
        if isinstance(target, cst.Name):
            self.bound.add(target.value)
        elif isinstance(target, (cst.Tuple, cst.List)):
            for element in target.elements:
                self._bind(element.value)
        elif isinstance(target, cst.StarredElement):
            self._bind(target.value)
        elif isinstance(target, (cst.Attribute, cst.Subscript)):
            root = _root(target)
            if root is not None:
                self.assigned_attribute_of.add(root)

    def visit_AssignTarget(self, node: cst.AssignTarget) -> None:
        self._bind(node.target)

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        self._bind(node.target)

    def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
        self._bind(node.target)

    def visit_Del(self, node: cst.Del) -> None:
        self._bind(node.target)

    def visit_NamedExpr(self, node: cst.NamedExpr) -> None:
        self._bind(node.target)

    def visit_WithItem(self, node: cst.WithItem) -> None:
        if node.asname is not None:
            self._bind(node.asname.name)

    def visit_ExceptHandler(self, node: cst.ExceptHandler) -> None:
        if node.name is not None:
            self._bind(node.name.name)

    def visit_ImportAlias(self, node: cst.ImportAlias) -> None:
        name: cst.BaseExpression = node.asname.name if node.asname is not None else node.name
        while isinstance(name, cst.Attribute):
            name = name.value
        self._bind(name)

    def visit_ImportStar(self, node: cst.ImportStar) -> None:
        self.leaves = "a `*` import binds unknown names"

    def visit_Global(self, node: cst.Global) -> None:
        self.bound.update(item.name.value for item in node.names)

    def visit_Nonlocal(self, node: cst.Nonlocal) -> None:
        self.bound.update(item.name.value for item in node.names)

    def visit_Match(self, node: cst.Match) -> None:
        self.leaves = "a `match` statement binds names"

    def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
        self.bound.add(node.name.value)
        return False  # its body runs later, if ever

    def visit_ClassDef(self, node: cst.ClassDef) -> bool:
        self.bound.add(node.name.value)
        return False

    def visit_Lambda(self, node: cst.Lambda) -> bool:
        return False

    def visit_For(self, node: cst.For) -> None:
        self._bind(node.target)
        self._loops += 1

    def leave_For(self, original_node: cst.For) -> None:
        self._loops -= 1

    def visit_While(self, node: cst.While) -> None:
        self._loops += 1

    def leave_While(self, original_node: cst.While) -> None:
        self._loops -= 1

    def visit_Attribute(self, node: cst.Attribute) -> None:
        self.attributes.add(node.attr.value)

    def visit_SimpleString(self, node: cst.SimpleString) -> None:
        value = node.evaluated_value
        if isinstance(value, str):
            self.attributes.add(value)

    def visit_Call(self, node: cst.Call) -> None:
        if is_consuming_call(node):
            self.consuming += 1
        # The callee could read the override or consume it (a forward one call further down).
        self.handed_to_calls.update(a.value.value for a in node.args if isinstance(a.value, cst.Name))
        if isinstance(node.func, cst.Attribute) and isinstance(node.func.value, cst.Name):
            self.handed_to_calls.add(node.func.value.value)
        if m.matches(node.func, m.Name("setattr") | m.Name("delattr")) and node.args:
            root = _root(node.args[0].value)
            if root is not None:
                self.assigned_attribute_of.add(root)

    def visit_Return(self, node: cst.Return) -> None:
        self.leaves = "a `return` in between skips the consuming call"

    def visit_Yield(self, node: cst.Yield) -> None:
        self.leaves = "a `yield` in between suspends before the consuming call"

    def visit_Await(self, node: cst.Await) -> None:
        self.leaves = "an `await` in between suspends before the consuming call"

    def visit_Break(self, node: cst.Break) -> None:
        if not self._loops:
            self.leaves = "a `break` in between skips the consuming call"

    def visit_Continue(self, node: cst.Continue) -> None:
        if not self._loops:
            self.leaves = "a `continue` in between skips the consuming call"


def _effects(statements: Sequence[cst.CSTNode]) -> _Effects:
    effects = _Effects()
    for statement in statements:
        statement.visit(effects)
    return effects


def _passing_refusal(between: Sequence[cst.CSTNode], field: str, batch_names: set[str], reads: set[str]) -> str | None:
    """Why `field`'s write (reading `reads`) cannot be carried past `between`, or None."""
    effects = _effects(between)
    if effects.consuming:
        return "another consuming call sits in between"
    if field in effects.attributes:
        return f"`{field}` is read or written in between"
    # The batch's name is not given: semantic-review reads it before the renames.
    if batch_names & effects.handed_to_calls:
        return "the batch is handed to a call in between, which may read or consume the override"
    if batch_names & effects.bound:
        return "the batch is rebound in between"
    rebound = sorted(reads & effects.bound)
    if rebound:
        return f"`{rebound[0]}` is rebound in between"
    mutated = sorted(reads & effects.assigned_attribute_of)
    if mutated:
        return f"an attribute of `{mutated[0]}`, which the value reads, is assigned in between"
    return effects.leaves


def _contains_consuming_call(statement: cst.CSTNode) -> list[cst.Call]:
    found: list[cst.Call] = []

    class _Calls(OwnScopeVisitor):
        def visit_Call(self, node: cst.Call) -> None:
            if is_consuming_call(node):
                found.append(node)

    statement.visit(_Calls())
    return found


@dataclass(frozen=True)
class Refused:
    reason: str


def _consumer(block: Sequence[cst.CSTNode], index: int, batch_names: set[str]) -> int | Refused:
    """Index of the statement holding the consuming call that follows `block[index]`."""
    for later in range(index + 1, len(block)):
        calls = _contains_consuming_call(block[later])
        if not calls:
            continue
        if not isinstance(block[later], cst.SimpleStatementLine):
            return Refused("the consuming call sits in a nested block")
        if len(calls) > 1:
            return Refused("the next statement makes two consuming calls")
        if consumed_batch(calls[0]) not in batch_names:
            return Refused("the next consuming call takes another batch")
        return later
    return Refused("the consuming call is outside this block")


def _between(block: Sequence[cst.CSTNode], start: int, stop: int, skipped: frozenset[int]) -> list[cst.CSTNode]:
    return [block[i] for i in range(start + 1, stop) if id(block[i]) not in skipped]


def plan_write_move(
    block: Sequence[cst.CSTNode],
    index: int,
    field: str,
    value: cst.BaseExpression,
    batch_names: set[str],
    skipped: frozenset[int] = frozenset(),
) -> int | Refused:
    """Where the override written at `block[index]` may move: the index of its consuming statement.

    The caller has checked that exactly one consuming call follows the write in the function.
    `skipped` holds statements that will not be there any more (bindings worker-batch-calls drops,
    asserts that move past the consuming call).
    """
    reads, effect = expression_reads(value)
    if effect is not None:
        return Refused(f"the value cannot be evaluated later: {effect}")
    if reads & batch_names:
        return Refused("the value reads the batch itself")
    consumer = _consumer(block, index, batch_names)
    if isinstance(consumer, Refused):
        return consumer
    refusal = _passing_refusal(_between(block, index, consumer, skipped), field, batch_names, reads)
    return Refused(refusal) if refusal is not None else consumer


@dataclass(frozen=True)
class AssertMove:
    consumer: int  # index of `forward_batch = ForwardBatch.init_new(batch, ...)`
    forward_batch: str


def derived_mode_assert(statement: cst.CSTNode) -> cst.Name | None:
    """The batch name node of `assert batch.capture_hidden_mode <op> M` (either side)."""
    found = _derived_mode_assertion(statement)
    return found[2] if found is not None else None


def _derived_mode_assertion(statement: cst.CSTNode) -> tuple[cst.Assert, cst.Comparison, cst.Name] | None:
    """`assert batch.capture_hidden_mode <op> M`: the assertion, its comparison and the batch name node."""
    if not isinstance(statement, cst.SimpleStatementLine) or len(statement.body) != 1:
        return None
    assertion = statement.body[0]
    if not isinstance(assertion, cst.Assert) or not isinstance(assertion.test, cst.Comparison):
        return None
    comparison = assertion.test
    if len(comparison.comparisons) != 1:
        return None
    mode = m.Attribute(value=m.Name(), attr=m.Name(DERIVED_MODE))
    sides = [
        side.value
        for side in (comparison.left, comparison.comparisons[0].comparator)
        if isinstance(side, cst.Attribute) and isinstance(side.value, cst.Name) and m.matches(side, mode)
    ]
    return (assertion, comparison, sides[0]) if len(sides) == 1 else None


def plan_assert_move(
    block: Sequence[cst.CSTNode], index: int, batch_names: set[str], skipped: frozenset[int] = frozenset()
) -> AssertMove | Refused | None:
    """Whether the derived-mode assert at `block[index]` may read the forward batch instead (None: not one)."""
    found = _derived_mode_assertion(block[index])
    if found is None or found[2].value not in batch_names:
        return None
    assertion, comparison, _receiver = found
    mode = m.Attribute(value=m.Name(), attr=m.Name(DERIVED_MODE))
    others = [side for side in (comparison.left, comparison.comparisons[0].comparator) if not m.matches(side, mode)]
    if assertion.msg is not None:
        others.append(assertion.msg)
    reads: set[str] = set()
    for other in others:
        names, effect = expression_reads(other)
        if effect is not None:
            return Refused(f"the assertion cannot be evaluated later: {effect}")
        reads |= names
    if reads & batch_names:
        return Refused("the assertion reads the batch elsewhere too")
    consumer = _consumer(block, index, batch_names)
    if isinstance(consumer, Refused):
        return consumer
    binding = init_new_binding(block[consumer])
    if binding is None:
        return Refused("the consuming call is no `forward_batch = ForwardBatch.init_new(...)`")
    forward_batch = binding[0]
    if forward_batch in reads:
        return Refused(f"the assertion reads `{forward_batch}`, which init_new rebinds")
    between = _between(block, index, consumer, skipped)
    refusal = _passing_refusal(between, DERIVED_MODE, batch_names, reads)
    if refusal is None:
        if batch_names & _effects(between).assigned_attribute_of:
            refusal = "an attribute of the batch is assigned in between, which may change the mode"
    return Refused(refusal) if refusal is not None else AssertMove(consumer, forward_batch)


def plan_forward_batch_write_move(block: Sequence[cst.CSTNode], index: int) -> str | None:
    """The batch name when `block[index]` is `forward_batch.return_hidden_states_before_norm = V`
    right after `forward_batch = ForwardBatch.init_new(batch, ...)` and may become a batch override."""
    write = override_write(block[index], (FORWARD_BATCH_OVERRIDE,))
    if write is None or index == 0:
        return None
    binding = init_new_binding(block[index - 1])
    if binding is None or binding[0] != write.receiver:
        return None
    reads, effect = expression_reads(write.value)
    if effect is not None or reads & set(binding):
        return None
    return binding[1]


class _SnapshotBindings(OwnScopeVisitor):
    """Names a function body binds to a snapshot kept in code, its nested scopes left out."""

    def __init__(self) -> None:
        self.names: set[str] = set()

    def visit_Assign(self, node: cst.Assign) -> None:
        for target in node.targets:
            self._bind(target.target, node.value)

    def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
        if node.value is not None:
            self._bind(node.target, node.value)

    def visit_NamedExpr(self, node: cst.NamedExpr) -> None:
        self._bind(node.target, node.value)

    def _bind(self, target: cst.BaseExpression, value: cst.BaseExpression) -> None:
        if isinstance(target, cst.Name) and m.matches(value, m.Call(func=m.Name(SNAPSHOT_HELPER))):
            self.names.add(target.value)
        elif isinstance(target, (cst.Tuple, cst.List)) and isinstance(value, (cst.Tuple, cst.List)):
            if len(target.elements) == len(value.elements):  # `mwb, index = worker_batch_snapshot(b), i`
                for bound, given in zip(target.elements, value.elements, strict=True):
                    self._bind(bound.value, given.value)


_BINDING_TARGETS = (
    m.AssignTarget(target=m.SaveMatchedNode(m.DoNotCare(), "bound"))
    | m.AnnAssign(target=m.SaveMatchedNode(m.DoNotCare(), "bound"))
    | m.AugAssign(target=m.SaveMatchedNode(m.DoNotCare(), "bound"))
    | m.NamedExpr(target=m.SaveMatchedNode(m.DoNotCare(), "bound"))
    | m.For(target=m.SaveMatchedNode(m.DoNotCare(), "bound"))
    | m.CompFor(target=m.SaveMatchedNode(m.DoNotCare(), "bound"))
    | m.AsName(name=m.SaveMatchedNode(m.DoNotCare(), "bound"))
    | m.Del(target=m.SaveMatchedNode(m.DoNotCare(), "bound"))
    | m.FunctionDef(name=m.SaveMatchedNode(m.DoNotCare(), "bound"))
    | m.ClassDef(name=m.SaveMatchedNode(m.DoNotCare(), "bound"))
    | m.MatchAs(name=m.SaveMatchedNode(m.DoNotCare(), "bound"))
    | m.MatchStar(name=m.SaveMatchedNode(m.DoNotCare(), "bound"))
    | m.MatchMapping(rest=m.SaveMatchedNode(m.DoNotCare(), "bound"))
)


def names_bound_in(function: cst.FunctionDef) -> set[str]:
    """Every name the function, or a scope nested in it, may bind: a parameter, any assignment,
    `for`, `with`/`except`/`import ... as`, `:=`, comprehension, `del`, `def`, `class`, `match`
    capture or plain import, each through any tuple or list unpacking. More than its own scope binds
    (a nested scope's names count), which errs toward a name not being the enclosing function's."""
    bound: set[str] = set()
    bound.update(cst.ensure_type(param, cst.Param).name.value for param in m.findall(function, m.Param()))
    for captured in m.extractall(function, _BINDING_TARGETS):
        target = captured["bound"]
        assert isinstance(target, cst.CSTNode), "each pattern saves one node"
        bound.update(_target_names(target))
    for alias in m.findall(function, m.ImportAlias(asname=None)):  # `import a.b` binds `a`
        imported: cst.BaseExpression = cst.ensure_type(alias, cst.ImportAlias).name
        while isinstance(imported, cst.Attribute):
            imported = imported.value
        bound.update(_target_names(imported))
    return bound


def _target_names(target: cst.CSTNode) -> set[str]:
    """The names a binding target binds: itself, or through unpacking (`a, [b, *c]`); an attribute
    or a subscript binds none."""
    if isinstance(target, cst.Name):
        return {target.value}
    if isinstance(target, (cst.Tuple, cst.List)):
        return {name for element in target.elements for name in _target_names(element.value)}
    if isinstance(target, cst.StarredElement):
        return _target_names(target.value)
    return set()


class _Bindings(OwnScopeVisitor):
    """How a function body binds one name, its nested scopes left out: the value of each plain
    `name = value` (annotated, `:=`), or the binding statement's code for any other form."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.values: list[cst.BaseExpression] = []
        self.other: list[cst.CSTNode] = []

    def _binds(self, target: cst.CSTNode) -> bool:
        return self.name in _target_names(target)

    def visit_Assign(self, node: cst.Assign) -> None:
        for target in node.targets:
            if m.matches(target.target, m.Name(self.name)):
                self.values.append(node.value)
            elif self._binds(target.target):
                self.other.append(node)

    def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
        if m.matches(node.target, m.Name(self.name)) and node.value is not None:
            self.values.append(node.value)

    def visit_NamedExpr(self, node: cst.NamedExpr) -> None:
        if m.matches(node.target, m.Name(self.name)):
            self.values.append(node.value)

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        if self._binds(node.target):
            self.other.append(node)

    def visit_For(self, node: cst.For) -> None:
        if self._binds(node.target):
            self.other.append(node)

    def visit_CompFor(self, node: cst.CompFor) -> None:
        if self._binds(node.target):
            self.other.append(node)

    def visit_AsName(self, node: cst.AsName) -> None:
        if self._binds(node.name):
            self.other.append(node)

    def visit_Global(self, node: cst.Global) -> None:
        if any(item.name.value == self.name for item in node.names):
            self.other.append(node)

    def visit_Nonlocal(self, node: cst.Nonlocal) -> None:
        if any(item.name.value == self.name for item in node.names):
            self.other.append(node)


def unplain_binding(function: cst.FunctionDef, name: str) -> str | None:
    """How the function binds `name` where it could hold an object other code keeps: `None` where
    every binding is the parameter, another name, or a snapshot it takes (`worker_batch_snapshot(...)`),
    else the first other binding, as code (`self.mwb`, `getattr(self, "mwb")`, a tuple unpacked,
    `with ... as`, `for`, `global`). An override written on such a name stays on that object."""
    bindings = _Bindings(name)
    function.body.visit(bindings)
    for value in bindings.values:
        if not m.matches(value, m.Name() | m.Call(func=m.Name(SNAPSHOT_HELPER))):
            return cst.Module([]).code_for_node(value)
    if bindings.other:
        code = cst.Module([]).code_for_node(bindings.other[0]).strip()
        return code.splitlines()[0] if code else type(bindings.other[0]).__name__
    return None


def writes_field(function: cst.FunctionDef, name: str, field_name: str) -> bool:
    """`name.field = v`, or `setattr(name, "field", v)`, anywhere in the function."""
    target = m.AssignTarget(m.Attribute(value=m.Name(name), attr=m.Name(field_name)))
    if m.findall(function, m.Assign(targets=[m.ZeroOrMore(), target, m.ZeroOrMore()])):
        return True
    spelled = m.SimpleString(f'"{field_name}"') | m.SimpleString(f"'{field_name}'")
    return bool(
        m.findall(function, m.Call(func=m.Name("setattr"), args=[m.Arg(m.Name(name)), m.Arg(spelled), m.ZeroOrMore()]))
    )


def kept_snapshots(function: cst.FunctionDef) -> set[str]:
    """The names the function binds to a snapshot kept in code (`x = worker_batch_snapshot(...)`,
    annotated, unpacked from a tuple, or by `:=`): the old object, which keeps an override written on
    it through every forward. A nested function's own names are not the function's."""
    bindings = _SnapshotBindings()
    function.body.visit(bindings)
    return bindings.names


def read_back_by_snapshot(function: cst.FunctionDef, name: str) -> bool:
    """Whether the function takes a kept snapshot of `name` with `name.seq_lens_cpu_cache` as its
    override (`worker_batch_snapshot(batch, batch.seq_lens_cpu_cache)`): 0.5.12's split-prefill cache,
    a plain field the snapshot reads back, which no consumer reads from 0.5.16 on."""
    cache = m.Attribute(value=m.Name(name), attr=m.Name(OVERRIDE_ARGUMENT))
    for call in m.findall(function, m.Call(func=m.Name(SNAPSHOT_HELPER))):
        arguments = cst.ensure_type(call, cst.Call).args
        if len(arguments) < 2 or arguments[0].keyword is not None or not m.matches(arguments[0].value, m.Name(name)):
            continue
        override = arguments[1]
        if m.matches(override.value, cache) and (
            override.keyword is None or override.keyword.value == OVERRIDE_ARGUMENT
        ):
            return True
    return False


class _SnapshotUses(cst.CSTVisitor):
    """Which of `names` the function uses other than by an attribute (`x.f`, `x.f = v`) or as the
    batch of a `ForwardBatch.init_new(x, ...)` or `w.forward_batch_generation(x, ...)` it calls itself."""

    def __init__(self, names: set[str]) -> None:
        self.names = names
        self.escaping: dict[str, set[int]] = {}
        self._harmless: set[int] = set()  # Name nodes (by id) used in one of those two ways

    def visit_Attribute(self, node: cst.Attribute) -> None:
        if isinstance(node.value, cst.Name):
            self._harmless.add(id(node.value))

    def visit_Call(self, node: cst.Call) -> None:
        consumer = m.Attribute(value=m.Name("ForwardBatch"), attr=m.Name("init_new"))
        if m.matches(node.func, consumer | m.Attribute(attr=m.Name(WORKER_METHOD))) and node.args:
            first = node.args[0]
            if first.keyword is None and not first.star and isinstance(first.value, cst.Name):
                self._harmless.add(id(first.value))
            for argument in node.args:
                if argument.keyword is not None and argument.keyword.value == "batch":
                    self._harmless.add(id(argument.value))
        # `worker_batch_capture_mode(x)` reads the snapshot's mode: no hand-off.
        if m.matches(node.func, m.Name(CAPTURE_MODE_HELPER)) and node.args and isinstance(node.args[0].value, cst.Name):
            self._harmless.add(id(node.args[0].value))

    def visit_Del(self, node: cst.Del) -> None:
        if isinstance(node.target, cst.Name):
            self._harmless.add(id(node.target))

    def visit_AssignTarget(self, node: cst.AssignTarget) -> None:
        if isinstance(node.target, cst.Name):
            self._harmless.add(id(node.target))  # the binding itself

    def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
        if isinstance(node.target, cst.Name):
            self._harmless.add(id(node.target))

    def visit_Name(self, node: cst.Name) -> None:
        if node.value in self.names and id(node) not in self._harmless:
            self.escaping.setdefault(node.value, set()).add(id(node))


class _LastUse(cst.CSTVisitor):
    """Walks a function body in order: is `name` named after `statement` (but by `name.f`, `f` no
    override), or is `statement` in a loop?"""

    def __init__(self, name: str, statement: cst.CSTNode) -> None:
        self.name, self.statement = name, statement
        self.passed = False  # the walk has left `statement`
        self.named_after = False
        self.in_loop = False
        self._loops = 0
        self._field_uses: set[int] = set()

    def on_visit(self, node: cst.CSTNode) -> bool:
        if node is self.statement:
            self.in_loop = self._loops > 0
        elif isinstance(node, cst.Attribute) and node.attr.value not in ONE_SHOT_OVERRIDES:
            self._field_uses.add(id(node.value))  # `x.seq_lens`: reads no override, hands nothing on
        elif (
            self.passed and isinstance(node, cst.Name) and node.value == self.name and id(node) not in self._field_uses
        ):
            self.named_after = True
        if isinstance(node, (cst.For, cst.While)):
            self._loops += 1
        return True

    def on_leave(self, original_node: cst.CSTNode) -> None:
        if original_node is self.statement:
            self.passed = True
        if isinstance(original_node, (cst.For, cst.While)):
            self._loops -= 1


def last_use_of(function: cst.FunctionDef, name: str, statement: cst.CSTNode) -> bool:
    """Whether `statement` is the last the function does with `name` that could see an override: no
    later statement names it but to use one of its other fields, and no loop runs the statement again."""
    for nested in m.findall(function.body, m.FunctionDef() | m.Lambda()):
        if m.findall(nested, m.Name(name)):
            return False  # a nested function or lambda naming it may run after the call
    visitor = _LastUse(name, statement)
    function.body.visit(visitor)
    return visitor.passed and not visitor.named_after and not visitor.in_loop


def escaping_snapshots(function: cst.FunctionDef, kept: set[str]) -> dict[str, set[int]]:
    """The kept snapshots the function hands on, returns, stores or aliases, with those uses (Name
    nodes, by id): an override written on one reaches a forward that does not take it from the
    snapshot (a callee's `init_new`, a worker's use of it past the forward)."""
    if not kept:
        return {}
    uses = _SnapshotUses(kept)
    function.body.visit(uses)
    return uses.escaping


@dataclass
class BlockPlan:
    """Every move one block allows, by statement index, and why the others are refused."""

    writes: dict[int, int | Refused]  # override write -> index of its consuming statement
    asserts: dict[int, AssertMove | Refused]
    forwards: dict[int, str]  # forward-batch write -> the batch name it moves onto


# (field, value, names of the batch) of an override write, or None
WriteSite = Callable[[cst.CSTNode], "tuple[str, cst.BaseExpression, set[str]] | None"]


def plan_block(
    block: Sequence[cst.CSTNode],
    write_site: WriteSite,
    assert_names: Callable[[cst.CSTNode], "set[str] | None"],
    single_consumer: Callable[[cst.CSTNode], bool],
    deleted: frozenset[int] = frozenset(),
    kept: frozenset[str] = frozenset(),
    forward_writes: bool = True,
) -> BlockPlan:
    """Plan one block. `single_consumer(statement)`: exactly one consuming call follows it in the
    function (otherwise the write is MWB103's, and stays). Asserts are planned first: one that
    moves past the consuming call no longer sits between a write and that call. `kept`: names of
    snapshots kept in code, the old object, which keeps an override through every forward: a
    forward-batch write never moves onto one (it stays on the forward batch, valid at every target).
    `forward_writes`: whether a forward-batch write may become a batch override at all (upstream's
    0.5.13 did it by hand; from 0.5.16 the write stays where it is, valid on the forward batch)."""
    asserts: dict[int, AssertMove | Refused] = {}
    for index, statement in enumerate(block):
        names = assert_names(statement)
        plan = plan_assert_move(block, index, names, deleted) if names else None
        if plan is not None:
            asserts[index] = plan
    leaving = deleted | {id(block[i]) for i, plan in asserts.items() if isinstance(plan, AssertMove)}
    forwards = {}
    for index in range(len(block)):
        batch = plan_forward_batch_write_move(block, index) if forward_writes else None
        if batch is not None and batch not in kept:
            forwards[index] = batch
    writes: dict[int, int | Refused] = {}
    for index, statement in enumerate(block):
        site = write_site(statement) if index not in forwards else None
        if site is not None and single_consumer(statement):
            field, value, names = site
            writes[index] = plan_write_move(block, index, field, value, names, leaving)
    return BlockPlan(writes, asserts, forwards)


class _Blocks(OwnScopeVisitor):
    def __init__(self) -> None:
        self.blocks: list[cst.IndentedBlock] = []
        self.calls: list[cst.Call] = []

    def visit_IndentedBlock(self, node: cst.IndentedBlock) -> None:
        self.blocks.append(node)

    def visit_Call(self, node: cst.Call) -> None:
        if is_consuming_call(node):
            self.calls.append(node)


def function_blocks(function: cst.FunctionDef) -> tuple[list[cst.IndentedBlock], list[cst.Call]]:
    """The function's own blocks (not nested functions' or classes') and its consuming calls."""
    found = _Blocks()
    function.body.visit(found)
    return found.blocks, found.calls
