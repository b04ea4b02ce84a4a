"""Mark what syntax alone cannot prove, before the renames erase which names held the old object.

Reports, leaving the code as it is:
    MWB103  an override write or `get_model_worker_batch(seq_lens_cpu_cache=...)` not followed by
            exactly one consuming call (`ForwardBatch.init_new` / `forward_batch_generation`)
    MWB116  such an override followed by exactly one consuming call, that override-moves cannot
            prove safe to move next to it (the reason is given)
    MWB104  a read of a value the old object derived (`capture_hidden_mode`, an overridden `seq_lens_cpu`),
            except an assert that override-moves will move onto the forward batch
    MWB105  a read of `extend_seq_lens`/`extend_prefix_lens`/`extend_logprob_start_lens`, which were None
            in decode/idle on the old object and are not gated on ScheduleBatch
    MWB106  a write to the former old object, which now mutates the scheduler's long-lived batch
    MWB107  `ScheduleBatch.seq_lens_cpu_cache` used as a persistent cache (now a one-shot override)
    MWB112  the former old object passed where a `ForwardBatch` is expected
    MWB114  an old-object-only field read on a parameter typed `Union[ScheduleBatch, ModelWorkerBatch]`
    MWB190  a parameter that held the old object stored past the forward, or compared by identity
(MWB113, a public signature whose parameter is renamed, comes from parameter-renames.)

Whether an override or an assert can move is decided once, in `analysis.override_sites`, for this
codemod and for override-moves alike: a site override-moves resolves carries no marker here.
"""

from __future__ import annotations

import libcst as cst
import libcst.matchers as m
from libcst.metadata import ScopeProvider

from mwbmigrate.analysis.calls import callee_name, last_name
from mwbmigrate.analysis.isolation import called_only_isolated, runs_isolated
from mwbmigrate.analysis.names import OLD_PARAMETER, ONE_SHOT_OVERRIDES
from mwbmigrate.analysis.old_api import OLD_CLASS, OLD_METHOD, OVERRIDE_ARGUMENT, SNAPSHOT_HELPER, union_members
from mwbmigrate.analysis.one_call_away import (
    EXTEND_MODE_TESTS,
    FORWARD_BATCH_CALLEES,
    FORWARD_BATCH_POSITION,
    passed_at,
)
from mwbmigrate.analysis.override_sites import (
    CONSUMING_CALLS,
    CORE_RUNTIME,
    OVERRIDE_MOVES,
    AssertMove,
    Refused,
    codemod_runs,
    derived_mode_assert,
    function_blocks,
    override_write,
    plan_block,
    reads_through_view,
)
from mwbmigrate.analysis.receivers import FunctionFacts, all_params, old_method_call, override_argument
from mwbmigrate.analysis.target_versions import overrides_are_arguments
from mwbmigrate.analysis.window import WindowProof
from mwbmigrate.codemods._shared import function_facts
from mwbmigrate.codemods.base import INSTALLED_OVER_OLD_API, MigrationCodemod

# Methods that keep their argument in a container: `seen.append(batch)`.
_CONTAINER_ADDS = frozenset({"append", "appendleft", "add", "insert", "put", "put_nowait", "setdefault"})


def _forward_batch_argument(call: cst.Call) -> cst.BaseExpression | None:
    for arg in call.args:
        if arg.keyword is not None and arg.keyword.value == "forward_batch":
            return arg.value
    positional = [arg for arg in call.args if arg.keyword is None and not arg.star]
    return positional[FORWARD_BATCH_POSITION].value if len(positional) > FORWARD_BATCH_POSITION else None


DERIVED_FIELDS = frozenset({"capture_hidden_mode"})
# Old-object fields with no ScheduleBatch attribute of that name -> what ScheduleBatch calls it.
OLD_ONLY_FIELDS = {
    "extend_seq_lens": "extend_lens",
    "extend_prefix_lens": "prefix_lens",
    "lora_ids": "[req.lora_id for req in batch.reqs]",
    "dllm_block_offsets": "[req.dllm_block_offset for req in batch.reqs]",
}
UNGATED_FIELDS = frozenset({"extend_seq_lens", "extend_prefix_lens", "extend_logprob_start_lens"})


class _Deferred(cst.CSTVisitor):
    """Whether a node sits in a lambda or a generator expression of the body: it runs later, if at all."""

    def __init__(self, target: cst.CSTNode) -> None:
        self.target = target
        self.depth = 0
        self.found = False

    def on_visit(self, node: cst.CSTNode) -> bool:
        if node is self.target:
            self.found = self.depth > 0
        if isinstance(node, (cst.Lambda, cst.GeneratorExp)):
            self.depth += 1
        return not self.found

    def on_leave(self, original_node: cst.CSTNode) -> None:
        if isinstance(original_node, (cst.Lambda, cst.GeneratorExp)):
            self.depth -= 1


def _deferred(function: cst.FunctionDef, node: cst.CSTNode) -> bool:
    scan = _Deferred(node)
    function.body.visit(scan)
    return scan.found


class _FunctionScan(cst.CSTVisitor):
    """One walk over a function body (not nested defs), knowing the statement around each node."""

    def __init__(self, function: cst.FunctionDef) -> None:
        self.function = function
        self.statements: list[cst.CSTNode] = []
        # Every simple line of the body and every `if`/`while` (by its test), in order.
        self.statements_seen: list[cst.CSTNode] = []
        self.calls: list[tuple[cst.Call, cst.CSTNode]] = []
        self.writes: list[tuple[cst.Attribute, cst.CSTNode]] = []
        self.reads: list[tuple[cst.Attribute, cst.CSTNode]] = []
        self.gates: dict[
            int, tuple[cst.BaseExpression, ...]
        ] = {}  # id of a read -> tests of the ifs whose body holds it
        self.forward_modes: dict[str, list[cst.BaseExpression]] = {}  # local name -> the values bound to it
        self._targets: set[int] = set()
        self._tests: list[cst.BaseExpression] = []

    def on_visit(self, node: cst.CSTNode) -> bool:
        # Pushed even when not descended into: on_leave runs for a skipped node too.
        if isinstance(node, (cst.SimpleStatementLine, cst.BaseCompoundStatement)) and node is not self.function:
            self.statements.append(node)
        if isinstance(node, (cst.SimpleStatementLine, cst.If, cst.While)):
            self.statements_seen.append(node)
        if isinstance(node, cst.FunctionDef) and node is not self.function:
            return False
        return super().on_visit(node)

    def on_leave(self, original_node: cst.CSTNode) -> None:
        if (
            isinstance(original_node, (cst.SimpleStatementLine, cst.BaseCompoundStatement))
            and original_node is not self.function
        ):
            self.statements.pop()
        super().on_leave(original_node)

    def visit_AssignTarget(self, node: cst.AssignTarget) -> None:
        self._target(node.target)

    def visit_For(self, node: cst.For) -> None:
        self._target(node.target)

    def _target(self, target: cst.BaseExpression) -> None:
        """A target, and each element of a tuple or list target (`mwb.a, mwb.b = ...`)."""
        self._targets.add(id(target))
        if isinstance(target, cst.StarredElement):
            self._target(target.value)
        for element in getattr(target, "elements", ()):
            self._target(element.value)

    def visit_Assign(self, node: cst.Assign) -> None:
        for target in node.targets:
            for name in _bound_names(target.target):
                self.forward_modes.setdefault(name, []).append(
                    node.value if isinstance(target.target, cst.Name) else target.target
                )

    def visit_If_body(self, node: cst.If) -> None:
        self._tests.append(node.test)

    def leave_If_body(self, node: cst.If) -> None:
        self._tests.pop()

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        self._targets.add(id(node.target))

    def visit_Call(self, node: cst.Call) -> None:
        if self.statements:  # calls in decorators and defaults sit outside the body
            self.calls.append((node, self.statements[-1]))
            # `getattr(x, "field"[, default])` reads `x.field`, as the old object answered it.
            field = _constant_getattr_field(node)
            if field is not None:
                read = cst.Attribute(value=node.args[0].value, attr=cst.Name(field))
                self.reads.append((read, self.statements[-1]))
                self.gates[id(read)] = tuple(self._tests)
            # `setattr(x, "field", value)` writes `x.field`.
            field = _constant_getattr_field(node, "setattr", 3)
            if field is not None:
                self.writes.append((cst.Attribute(value=node.args[0].value, attr=cst.Name(field)), self.statements[-1]))

    def visit_Attribute(self, node: cst.Attribute) -> None:
        if not self.statements or not isinstance(node.value, cst.Name):
            return
        if id(node) in self._targets:
            self.writes.append((node, self.statements[-1]))
        else:
            self.reads.append((node, self.statements[-1]))
            self.gates[id(node)] = tuple(self._tests)


def _constant_getattr_field(call: cst.Call, function: str = "getattr", arity: int | None = None) -> str | None:
    """`getattr(name, "field")` or `getattr(name, "field", default)` -> "field" (`setattr(name,
    "field", value)` with `function="setattr", arity=3`)."""
    arguments = call.args
    arities = (2, 3) if arity is None else (arity,)
    if not (isinstance(call.func, cst.Name) and call.func.value == function and len(arguments) in arities):
        return None
    if any(argument.keyword is not None or argument.star for argument in arguments):
        return None
    if not isinstance(arguments[0].value, cst.Name) or not isinstance(arguments[1].value, cst.SimpleString):
        return None
    field = arguments[1].value.evaluated_value
    return field if isinstance(field, str) and field.isidentifier() else None


def _bound_names(target: cst.BaseExpression) -> list[str]:
    if isinstance(target, cst.Name):
        return [target.value]
    if isinstance(target, (cst.Tuple, cst.List)):
        return [name for element in target.elements for name in _bound_names(element.value)]
    return []


def _proves_extend(test: cst.BaseExpression, holds_old: set[str], scan: _FunctionScan) -> bool:
    """Whether `test` being true proves the old object's forward mode was neither decode nor idle."""
    if isinstance(test, cst.BooleanOperation) and isinstance(test.operator, cst.And):
        return _proves_extend(test.left, holds_old, scan) or _proves_extend(test.right, holds_old, scan)
    if isinstance(test, cst.BooleanOperation) and isinstance(test.operator, cst.Or):
        return _proves_extend(test.left, holds_old, scan) and _proves_extend(test.right, holds_old, scan)
    negated = isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not)
    call = test.expression if isinstance(test, cst.UnaryOperation) and negated else test
    if not isinstance(call, cst.Call) or not isinstance(call.func, cst.Attribute):
        return False
    method = call.func.attr.value
    if (method == "is_decode_or_idle") != negated or (not negated and method not in EXTEND_MODE_TESTS):
        return False
    return _is_old_forward_mode(call.func.value, holds_old, scan)


def _is_old_forward_mode(node: cst.BaseExpression, holds_old: set[str], scan: _FunctionScan) -> bool:
    """`old.forward_mode`, or a local bound once, to that, in the function."""
    if isinstance(node, cst.Attribute) and node.attr.value == "forward_mode":
        return isinstance(node.value, cst.Name) and node.value.value in holds_old
    if isinstance(node, cst.Name):
        values = scan.forward_modes.get(node.value, [])
        return (
            len(values) == 1
            and _is_old_forward_mode(values[0], holds_old, scan)
            and not isinstance(values[0], cst.Name)
        )
    return False


# What the old method derived `capture_hidden_mode` from.
_DERIVATION_INPUTS = frozenset({"spec_info", "return_hidden_states"})
# Calls that hold what they are handed and run with it later: the batch they get is read then.
_DEFERRING_CALLS = frozenset(
    {
        "partial",
        "partialmethod",
        "Thread",
        "Timer",
        "submit",
        "call_soon",
        "call_later",
        "run_in_executor",
        "apply_async",
    }
)
# Calls that run a function they are handed before they return (`sorted(..., key=lambda r: ...)`).
_CALLS_AT_ONCE = frozenset({"sorted", "sort", "min", "max", "sum", "any", "all", "list", "tuple", "set", "dict"})


def _holds(value: cst.BaseExpression, params: set[str], closures: _Closures) -> bool:
    """`value` is a kept parameter, a closure reading one, or a display holding either."""
    if isinstance(value, cst.Name):
        return value.value in params or value.value in closures.names
    if isinstance(value, cst.Lambda):
        return id(value) in closures.lambdas
    if isinstance(value, (cst.Tuple, cst.List, cst.Set)):
        return any(_holds(element.value, params, closures) for element in value.elements)
    if isinstance(value, cst.Dict):
        return any(
            isinstance(element, cst.DictElement) and _holds(element.value, params, closures)
            for element in value.elements
        )
    return False


def _keeps(part: cst.CSTNode, params: set[str], closures: _Closures) -> bool:
    """Whether a statement keeps a parameter that held the old object past the forward (see
    `_kept_past_the_forward`), outside the functions and lambdas it defines."""
    for node in _own_nodes(part):
        if isinstance(node, cst.Assign) and _holds(node.value, params, closures):
            if any(isinstance(t.target, (cst.Attribute, cst.Subscript)) for t in node.targets):
                return True
        # A returned closure runs when its caller calls it (the batch itself, returned, is what the
        # old object was to that caller).
        if isinstance(node, cst.Return) and node.value is not None and _holds(node.value, set(), closures):
            return True
        if isinstance(node, cst.Call):
            callee = callee_name(node)
            for argument in node.args:
                value = argument.value
                if not _holds(value, params, closures):
                    continue
                if isinstance(value, (cst.Tuple, cst.List, cst.Set, cst.Dict)) or callee in _DEFERRING_CALLS:
                    return True
                bare_param = isinstance(value, cst.Name) and value.value in params
                if (callee in _CONTAINER_ADDS) if bare_param else (callee not in _CALLS_AT_ONCE):
                    return True
    return False


def _compared_by_identity(part: cst.CSTNode, params: set[str]) -> bool:
    for node in _own_nodes(part):
        if not isinstance(node, cst.Comparison):
            continue
        operands = [node.left, *(t.comparator for t in node.comparisons)]
        if not any(isinstance(o, cst.Name) and o.value in params for o in operands):
            continue
        if any(isinstance(t.operator, (cst.Is, cst.IsNot)) for t in node.comparisons) and not any(
            m.matches(operand, m.Name("None")) for operand in operands
        ):
            return True  # (`batch is None` holds alike for both)
    return False


def _own_nodes(root: cst.CSTNode) -> list[cst.CSTNode]:
    """`root` and the nodes below it, not inside a function or a lambda it defines."""
    found: list[cst.CSTNode] = []
    pending = [root]
    while pending:
        node = pending.pop()
        found.append(node)
        if node is not root and isinstance(node, (cst.FunctionDef, cst.Lambda, cst.ClassDef)):
            continue
        pending.extend(node.children)
    return found


class _Closures:
    """The functions and lambdas of a body that read one of its parameters: a closure kept past
    the forward reads the batch when it runs."""

    def __init__(self) -> None:
        self.names: set[str] = set()
        self.lambdas: set[int] = set()


def _closures_reading(function: cst.FunctionDef, params: set[str]) -> _Closures:
    closures = _Closures()
    pending: list[cst.CSTNode] = list(function.body.children)
    while pending:
        node = pending.pop()
        if isinstance(node, (cst.FunctionDef, cst.Lambda)):
            own = {param.name.value for param in all_params(node.params)}
            if any(isinstance(n, cst.Name) and n.value in params - own for n in m.findall(node.body, m.Name())):
                if isinstance(node, cst.FunctionDef):
                    closures.names.add(node.name.value)
                else:
                    closures.lambdas.add(id(node))
            continue
        if isinstance(node, cst.ClassDef):
            continue
        pending.extend(node.children)
    return closures


class ReportSemanticRisks(MigrationCodemod):
    CODE = "MWB010"
    NAME = "semantic-review"
    SUMMARY = "Mark sites whose meaning changes with the migration (one-shot overrides, derived and ungated reads, copy semantics)."
    TRIGGERS = (OLD_PARAMETER, OLD_CLASS, *INSTALLED_OVER_OLD_API)
    REVIEW_CODES = (
        "MWB103",
        "MWB104",
        "MWB105",
        "MWB106",
        "MWB107",
        "MWB112",
        "MWB114",
        "MWB116",
        "MWB180",
        "MWB190",
    )
    METADATA_DEPENDENCIES = (ScopeProvider,)

    # override-moves' plans for the function being visited, by id of the statement.
    _write_plans: dict[int, int | Refused]
    _assert_plans: dict[int, AssertMove | Refused]
    # The function's statements, by id, to the id of the block that holds each.
    _blocks: dict[int, int]

    def _line(self, node: cst.CSTNode) -> int:
        return self.line_of(node)

    def _read_through_view(self, node: cst.FunctionDef) -> bool:
        """core-runtime makes `ForwardBatch.init_new` read derived and gated values through the view."""
        runs = codemod_runs(CORE_RUNTIME, self.state.disabled_codemods)
        return runs and reads_through_view(self.enclosing_class(), node.name.value)

    def _moves_run(self) -> bool:
        return codemod_runs(OVERRIDE_MOVES, self.state.disabled_codemods)

    def _plan_moves(
        self, node: cst.FunctionDef, facts: FunctionFacts, accesses: set[cst.Name], consuming: list[int]
    ) -> None:
        """override-moves' plans, read on the code before the renames: every name that becomes
        `batch` counts as the batch, and the bindings worker-batch-calls drops are not there."""

        def names_of(name: str) -> set[str]:
            receiver = facts.aliases.get(name, name)
            return {receiver} | {alias for alias, r in facts.aliases.items() if r == receiver}

        overriding: dict[int, tuple[str, cst.BaseExpression]] = {}
        dropped: set[int] = set()
        for name, bindings in facts.bindings.items():
            for binding in bindings:
                value = override_argument(binding.call) if binding.call is not None else None
                if value is None:
                    dropped.add(id(binding.statement))
                else:
                    overriding[id(binding.statement)] = (name, value)

        def write_site(statement: cst.CSTNode) -> tuple[str, cst.BaseExpression, set[str]] | None:
            write = override_write(statement)
            if write is not None:
                # `name.F = E` alone on its line: is that `name` node an access to the old object?
                assign = cst.ensure_type(cst.ensure_type(statement, cst.SimpleStatementLine).body[0], cst.Assign)
                on_old_object = cst.ensure_type(assign.targets[0].target, cst.Attribute).value in accesses
                return (write.field, write.value, names_of(write.receiver)) if on_old_object else None
            if id(statement) in overriding:
                name, value = overriding[id(statement)]
                return OVERRIDE_ARGUMENT, value, names_of(name)
            return None

        def assert_names(statement: cst.CSTNode) -> set[str] | None:
            receiver = derived_mode_assert(statement)
            return names_of(receiver.value) if receiver is not None and receiver in accesses else None

        def single_consumer(statement: cst.CSTNode) -> bool:
            line = self._line(statement)
            return sum(1 for c in consuming if c >= line) == 1

        self._write_plans, self._assert_plans = {}, {}
        for block in function_blocks(node)[0]:
            plan = plan_block(
                block.body,
                write_site,
                assert_names,
                single_consumer,
                frozenset(dropped),
                forward_writes=not overrides_are_arguments(self.state.target_version),
            )
            self._write_plans.update((id(block.body[i]), p) for i, p in plan.writes.items())
            self._assert_plans.update((id(block.body[i]), p) for i, p in plan.asserts.items())

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        facts = function_facts(self, node)
        accesses = facts.old_object_accesses()
        either = self._params_typed_either(node)
        self._write_plans, self._assert_plans = {}, {}
        if not (accesses or facts.bindings or facts.aliases or either or facts.calls_old_method):
            return  # nothing here holds the old object: no site to judge
        scan = _FunctionScan(node)
        node.visit(scan)
        consuming = sorted(self._line(call) for call, _ in scan.calls if callee_name(call) in CONSUMING_CALLS)
        self._plan_moves(node, facts, accesses, consuming)
        holds_old = {access.value for access in accesses} | set(facts.aliases)
        # A helper that consumes the overrides on the batch it is handed counts where an override is
        # judged consumed, never where override-moves plans a move: it moves nothing next to one.
        consuming = sorted(
            [*consuming, *(self._line(call) for call, _ in scan.calls if self._consumes_one_call_away(call, holds_old))]
        )
        overridden = {
            name
            for name, bindings in facts.bindings.items()
            if any(b.call is not None and override_argument(b.call) is not None for b in bindings)
        }
        # Where each override field is set again, in the same block: a forward after that consumes
        # the new value. (One set on another branch runs instead of this one, not after it.)
        self._blocks = {id(statement): id(block) for block in function_blocks(node)[0] for statement in block.body}
        sets: dict[str, list[tuple[int, int]]] = {}
        for call, statement in scan.calls:
            if old_method_call(call) is not None and override_argument(call) is not None:
                sets.setdefault(OVERRIDE_ARGUMENT, []).append(self._where(call, statement))
        for target, statement in scan.writes:
            if target.value in accesses and target.attr.value in ONE_SHOT_OVERRIDES:
                sets.setdefault(target.attr.value, []).append(self._where(target, statement))
        # Batches whose `seq_lens_cpu_cache` this function writes and reads back as the old method's
        # override: the write, which leaves the value on the batch, is where the hazard is.
        written_back = {
            target.value.value
            for target, _ in scan.writes
            if target.attr.value == OVERRIDE_ARGUMENT
            and isinstance(target.value, cst.Name)
            and target.value not in accesses
        }
        read_back: set[str] = set()
        for call, statement in scan.calls:
            if old_method_call(call) is not None and override_argument(call) is not None:
                until = self._set_again(self._where(call, statement), sets[OVERRIDE_ARGUMENT])
                if statement not in facts.kept:  # a kept snapshot holds the override for every forward, as before
                    self._check_consumed(call, statement, consuming, f"`{OLD_METHOD}({OVERRIDE_ARGUMENT}=...)`", until)
                value = override_argument(call)
                persisted = (
                    isinstance(value, cst.Attribute)
                    and value.attr.value == OVERRIDE_ARGUMENT
                    and isinstance(value.value, cst.Name)
                    and value.value.value in written_back
                )
                if persisted:
                    read_back.add(cst.ensure_type(cst.ensure_type(value, cst.Attribute).value, cst.Name).value)
                elif isinstance(value, cst.Attribute) and value.attr.value == OVERRIDE_ARGUMENT:
                    self.review(
                        statement,
                        "MWB107",
                        "`seq_lens_cpu_cache` reused across forwards; in 0.5.13 it is a one-shot override consumed by init_new",
                    )
            if (
                callee_name(call) in FORWARD_BATCH_CALLEES
                and _forward_batch_argument(call) in accesses
                and not self._own_reader_one_call_away(node, call)
            ):
                self.review(
                    statement,
                    "MWB112",
                    f"the former old object is passed to `{callee_name(call)}`, which expects a ForwardBatch",
                )
        for target, statement in scan.writes:
            field = target.attr.value
            if target.value in accesses:
                if field in ONE_SHOT_OVERRIDES:
                    until = self._set_again(self._where(target, statement), sets[field])
                    self._check_consumed(target, statement, consuming, f"`{field}` override", until)
                elif self._undone_by_isolation(node, cst.ensure_type(target.value, cst.Name).value):
                    self.review(
                        statement,
                        "MWB180",
                        f"write to `{field}` reaches the scheduler's batch; "
                        f"{self.state.target_version}'s forward isolation sets it back after the forward",
                    )
                else:
                    self.review(
                        statement,
                        "MWB106",
                        f"write to `{field}` now mutates the scheduler's ScheduleBatch (it hit a throw-away copy before)",
                    )
            elif field == OVERRIDE_ARGUMENT and overrides_are_arguments(self.state.target_version):
                pass  # no such override from 0.5.16: nothing consumes the field (override-arguments: MWB139)
            elif field == OVERRIDE_ARGUMENT and isinstance(target.value, cst.Name) and target.value.value in read_back:
                self.review(
                    statement,
                    "MWB107",
                    f"`{target.value.value}.seq_lens_cpu_cache` written as a persistent cache and read back by a later "
                    f"call of this function; in 0.5.13 it is a one-shot override that the next `init_new` of this "
                    f"batch consumes and resets",
                )
            elif field == OVERRIDE_ARGUMENT and facts.aliases:
                self.review(
                    statement,
                    "MWB107",
                    "`ScheduleBatch.seq_lens_cpu_cache` written as a persistent cache; in 0.5.13 it is a one-shot override",
                )
        for attribute, statement in scan.reads:
            receiver = cst.ensure_type(attribute.value, cst.Name)  # the scan keeps reads of a name's attribute only
            field = attribute.attr.value
            if receiver.value in either and field in OLD_ONLY_FIELDS:
                self.review(
                    statement,
                    "MWB114",
                    f"`{field}` exists only on the old object, but `{receiver.value}` may be a ScheduleBatch (its field is `{OLD_ONLY_FIELDS[field]}`)",
                )
                continue
            if attribute.value not in accesses or self._read_through_view(node):
                continue
            field = attribute.attr.value
            if field in DERIVED_FIELDS:
                if isinstance(self._assert_plans.get(id(statement)), AssertMove) and self._moves_run():
                    continue  # override-moves reads it on the forward batch, after init_new
                if self._derivation_read(node, facts, statement, receiver.value):
                    continue  # worker-batch-calls reads the old method's derivation there
                if overrides_are_arguments(self.state.target_version):
                    batch_has = f"SGLang {self.state.target_version}'s ScheduleBatch has no such field"
                else:
                    batch_has = "on ScheduleBatch it is None unless just set"
                self.review(
                    statement,
                    "MWB104",
                    f"`{field}` was derived on the old object; {batch_has}: read forward_batch.{field} after init_new",
                )
            elif field == "seq_lens_cpu" and receiver.value in overridden:
                self.review(
                    statement,
                    "MWB104",
                    "`seq_lens_cpu` reflected the override on the old object; read forward_batch.seq_lens_cpu after init_new",
                )
            elif (
                field in UNGATED_FIELDS
                and not any(_proves_extend(test, holds_old, scan) for test in scan.gates.get(id(attribute), ()))
                and not self._gated_one_call_up(node, receiver.value, facts)
            ):
                self.review(
                    statement,
                    "MWB105",
                    f"`{field}` was None in decode/idle on the old object; ScheduleBatch's field is not gated",
                )
        self._grammars_before_the_forward(scan, accesses, consuming)
        self._derivation_inputs_written(scan, accesses, facts)
        self._written_one_call_away(node, scan, accesses)
        if node.name.value != "record_batch_in_overlap" or self.state.location.inside_sglang:  # else MWB187
            self._kept_past_the_forward(scan, {param.name.value for param in facts.old_params})

    def _written_one_call_away(self, function: cst.FunctionDef, scan: _FunctionScan, accesses: set[cst.Name]) -> None:
        """The old object handed to a helper of the tree that writes an attribute of the parameter it
        takes there, a parameter the tool does not take for the old object, so its own body is not
        judged (analysis/one_call_away.py): the write hit a throw-away copy, it reaches the batch now."""
        writers = self.state.project_callers.one_call_away.parameter_writers
        for call, statement in scan.calls:
            name = callee_name(call)
            if name is None or name not in writers or any(argument.star for argument in call.args):
                continue
            positional: list[object] = [a.value for a in call.args if a.keyword is None]
            keywords: dict[str, object] = {a.keyword.value: a.value for a in call.args if a.keyword is not None}
            for written in writers[name]:
                if isinstance(call.func, cst.Attribute) != written.method:
                    continue
                passed = passed_at(positional, keywords, written)
                if not isinstance(passed, cst.Name) or passed not in accesses:
                    continue
                if self._undone_by_isolation(function, passed.value):
                    self.review(
                        statement,
                        "MWB180",
                        f"`{name}` writes the batch it is handed, which reaches the scheduler's batch; "
                        f"{self.state.target_version}'s forward isolation sets it back after the forward",
                    )
                else:
                    self.review(
                        statement,
                        "MWB106",
                        f"`{name}` writes attributes of the batch it is handed (`{written.name}`): the write now "
                        f"mutates the scheduler's ScheduleBatch (it hit a throw-away copy before)",
                    )
                break

    def _derivation_inputs_written(self, scan: _FunctionScan, accesses: set[cst.Name], facts: FunctionFacts) -> None:
        """`spec_info` or `return_hidden_states` written through the old object before a forward of
        it, with no capture mode written on it in between: the old object's `capture_hidden_mode` was
        derived from them when it was taken, and the old `init_new` read that field; the target's
        derives it at the forward, from the values written. Only where nothing before this function
        may have set the mode: on a snapshot taken here, or on the parameter of a worker's own
        forward, which the scheduler hands the batch (a helper's caller may set it, as SGLang's EAGLE
        workers do before `_draft_extend_for_prefill`)."""
        worker_forward = scan.function.name.value in CONSUMING_CALLS - {"init_new"}
        own = set(facts.aliases) | ({p.name.value for p in facts.old_params} if worker_forward else set())
        # A speculative worker's own base forward (`super().forward_batch_generation`) puts its own
        # speculative input on the batch and sets the mode itself, in both releases.
        speculative = any(self._undone_by_isolation(scan.function, name) for name in own)
        forwards = [
            (self._line(call), call)
            for call, _ in scan.calls
            if callee_name(call) in CONSUMING_CALLS
            and any(argument.value in accesses for argument in call.args)
            and not (speculative and m.matches(call.func, m.Attribute(value=m.Call(func=m.Name("super")))))
        ]
        for target, statement in scan.writes:
            if target.attr.value not in _DERIVATION_INPUTS or target.value not in accesses:
                continue
            name = cst.ensure_type(target.value, cst.Name).value
            if name not in own:
                continue
            line = self._line(target)
            later = [at for at, _ in forwards if at > line]
            if not later:
                continue
            modes = [
                self._line(t)
                for t, _ in scan.writes
                if t.attr.value == "capture_hidden_mode" and isinstance(t.value, cst.Name) and t.value.value == name
            ]
            if any(line < at < min(later) for at in modes):
                continue  # the mode is set on it before the forward: that value is passed
            self.review(
                statement,
                "MWB104",
                f"`{target.attr.value}` written before a forward: the old object's `capture_hidden_mode` was derived "
                f"from it when the old object was taken, the target's `init_new` derives it at the forward from "
                f"the value written here; set `capture_hidden_mode` explicitly before the forward",
            )

    def _grammars_before_the_forward(self, scan: _FunctionScan, accesses: set[cst.Name], consuming: list[int]) -> None:
        """`<old>.sampling_info.grammars` read or set before the function's first forward: the old
        method filled it in when the old object was taken, the target's `init_new` fills it in at the
        forward, from the requests (over a value set before)."""
        first_forward = min(consuming, default=None)
        sampling_infos = {
            id(read): statement
            for read, statement in [*scan.reads, *scan.writes]
            if read.attr.value == "sampling_info" and read.value in accesses
        }
        pattern = m.Attribute(value=m.Attribute(attr=m.Name("sampling_info")), attr=m.Name("grammars"))
        for found in m.findall(scan.function.body, pattern):
            attribute = cst.ensure_type(found, cst.Attribute)
            statement = sampling_infos.get(id(attribute.value))
            if statement is None or (first_forward is not None and self._line(attribute) > first_forward):
                continue
            self.review(
                statement,
                "MWB104",
                "`sampling_info.grammars` was filled in by the old method when the old object was taken; the "
                "target's `init_new` fills it in at the forward, from the requests: read or set it after the forward",
            )

    def _kept_past_the_forward(self, scan: _FunctionScan, params: set[str]) -> None:
        """A parameter that held the old object, kept past the forward or compared by identity: the
        old object was a fresh one at every forward, which a kept copy held as it was; the batch is
        the scheduler's long-lived one, the same at every forward. Kept: stored in an attribute or an
        item, added to a container, put in a tuple, list, set or dict handed to a call or stored
        (`queue.put((batch, ct))`, `Thread(..., args=(batch,))`), handed to a call that runs later
        (`partial`, an executor's `submit`), or read in a closure or a lambda that is itself kept so
        or returned (`result.delay_sample_func = sample`)."""
        if not params:
            return
        closures = _closures_reading(scan.function, params)
        for statement in scan.statements_seen:
            statement_part = statement.test if isinstance(statement, (cst.If, cst.While)) else statement
            if _keeps(statement_part, params, closures):
                self.review(
                    statement,
                    "MWB190",
                    "the parameter that held the old object is kept past the forward: it was a fresh object at "
                    "every forward, which a stored one kept as it was; it is the scheduler's long-lived batch now, "
                    f"and a later read sees its later changes (a snapshot of it, `{SNAPSHOT_HELPER}`, keeps the old object)",
                )
                continue
            if _compared_by_identity(statement_part, params):
                self.review(
                    statement,
                    "MWB190",
                    "the parameter that held the old object is compared by identity: it was a new object at every "
                    "forward, and is the scheduler's same batch at every forward now",
                )

    def _derivation_read(self, function: cst.FunctionDef, facts: FunctionFacts, statement: cst.CSTNode, name: str) -> bool:  # fmt: skip
        """`statement` is an assert of a snapshot read from the live batch (the window proven) on
        its capture mode, where the rewrite reads the old method's derivation from the batch."""
        if facts.scope is None or name not in facts.aliases or name in facts.unproven_live:
            return False
        if not any(binding.call is not None for binding in facts.bindings.get(name, ())):
            return False  # an alias of the batch, not a snapshot
        proof = WindowProof(self.module, function, facts.scope, self.state.window_facts)
        return proof.derived_mode_check(statement, name) is not None

    def _consumes_one_call_away(self, call: cst.Call, holds_old: set[str]) -> bool:
        """A call of a helper that consumes the overrides on the batch it is handed (analysis/
        one_call_away.py), handed a name that holds the old object. Not where the target passes
        the overrides as arguments: there `init_new` consumes no field of the batch."""
        if overrides_are_arguments(self.state.target_version):
            return False
        name = callee_name(call)
        parameter = self.state.project_callers.one_call_away.consumers.get(name or "")
        if parameter is None or name in CONSUMING_CALLS or isinstance(call.func, cst.Attribute) != parameter.method:
            return False
        if any(argument.star for argument in call.args):
            return False
        positional: list[object] = [a.value for a in call.args if a.keyword is None]
        keywords: dict[str, object] = {a.keyword.value: a.value for a in call.args if a.keyword is not None}
        passed = passed_at(positional, keywords, parameter)
        return isinstance(passed, cst.Name) and passed.value in holds_old

    def _own_reader_one_call_away(self, function: cst.FunctionDef, call: cst.Call) -> bool:
        """`self.sample(x, batch)` in a method of a class that defines `sample` itself, where every
        definition of it in the tree only reads fields the batch holds as the old object did from the
        parameter the batch is handed (analysis/one_call_away.py): the call reaches one of those
        bodies, and no forward batch is expected there. (`self.model_runner.sample` may be SGLang's.)
        Not where the tree runs code on a read of such a field (a property on a batch class: the old
        method ran it when the snapshot was taken), nor in a lambda or a generator, run later."""
        name = callee_name(call)
        parameter = self.state.project_callers.one_call_away.batch_readers.get(name or "")
        func = call.func
        if parameter is None or not (isinstance(func, cst.Attribute) and isinstance(func.value, cst.Name)):
            return False
        if self.state.window_facts.code_on_read is not None or _deferred(function, call):
            return False
        if any(argument.star or argument.keyword is not None for argument in call.args[: parameter.index + 1]):
            return False
        params = list(function.params.posonly_params) + list(function.params.params)
        owner = self._enclosing_class_node()
        receiver = func.value.value
        if owner is None or not params or params[0].name.value != receiver or function.decorators:
            return False
        scope = self.get_metadata(ScopeProvider, function.body, None)
        if scope is None or len(list(scope.assignments[receiver])) != 1:
            return False  # `self` bound again in the method
        return any(
            isinstance(statement, cst.FunctionDef) and statement.name.value == name for statement in owner.body.body
        )

    def _gated_one_call_up(self, function: cst.FunctionDef, receiver: str, facts: FunctionFacts) -> bool:
        """`receiver` is the parameter of a helper whose every call in the tree hands it an old object
        whose mode the caller tested for extend, or (core-runtime running) of one that only
        `ForwardBatch.init_new` calls with its batch, its gated view there; and the helper never binds
        it again (analysis/one_call_away.py)."""
        facts_away = self.state.project_callers.one_call_away
        tables = [facts_away.extend_gated]
        if codemod_runs(CORE_RUNTIME, self.state.disabled_codemods):
            tables.append(facts_away.through_view)
        parameters = [table[function.name.value] for table in tables if function.name.value in table]
        if not any(parameter.name == receiver for parameter in parameters) or facts.scope is None:
            return False
        return len(list(facts.scope.assignments[receiver])) == 1

    def _undone_by_isolation(self, function: cst.FunctionDef, receiver: str) -> bool:
        """Rules I1 and I2 of analysis.isolation: a write through a parameter of a method of a worker
        the target isolates whole, or of a function the tree calls only from such methods."""
        if receiver not in {param.name.value for param in all_params(function.params)}:
            return False
        target = self.state.target_version
        owner = self._enclosing_class_node()
        if owner is not None and runs_isolated(self._class_names(owner), target):
            return True
        return called_only_isolated(function.name.value, self.state.project_callers, target)

    def _enclosing_class_node(self) -> cst.ClassDef | None:
        for ancestor in reversed(self._ancestors):
            if isinstance(ancestor, cst.ClassDef):
                return ancestor
            if isinstance(ancestor, cst.FunctionDef) and ancestor is not self._ancestors[-1]:
                return None  # a function nested in the method: called from anywhere
        return None

    def _class_names(self, owner: cst.ClassDef) -> set[str]:
        """The class's name and its bases' as written, through the module's own classes."""
        module = next((a for a in self._ancestors if isinstance(a, cst.Module)), None)
        classes = {c.name.value: c for c in module.body if isinstance(c, cst.ClassDef)} if module else {}
        names: set[str] = set()
        pending = [owner]
        while pending:
            current = pending.pop()
            if current.name.value in names:
                continue
            names.add(current.name.value)
            for base in current.bases:
                name = last_name(base.value)
                if name:
                    names.add(name)
                    if name in classes and name != current.name.value:
                        pending.append(classes[name])
        return names

    def _params_typed_either(self, node: cst.FunctionDef) -> set[str]:
        """Parameters annotated `Union[..., ModelWorkerBatch, ...]` (or `A | ModelWorkerBatch`)."""
        names = set()
        for param in all_params(node.params):
            if param.annotation is None:
                continue
            annotation = param.annotation.annotation
            members = union_members(annotation)  # `None` is no member: `X | None` is `Optional[X]`
            if len(members) > 1 and any(self.names_old_class(member) for member in members):
                names.add(param.name.value)
        return names

    def _where(self, node: cst.CSTNode, statement: cst.CSTNode) -> tuple[int, int]:
        """`node`'s line, and the block its statement stands in."""
        return self._line(node), self._blocks.get(id(statement), id(statement))

    @staticmethod
    def _set_again(where: tuple[int, int], sets: list[tuple[int, int]]) -> int | None:
        """The line where the override set at `where` is next set again in its block, if any."""
        line, block = where
        return min((other for other, other_block in sets if other > line and other_block == block), default=None)

    def _check_consumed(
        self, node: cst.CSTNode, statement: cst.CSTNode, consuming: list[int], what: str, until: int | None
    ) -> None:
        line = self._line(node)
        after = [c for c in consuming if c >= line and (until is None or c < until)]
        if not after:
            self.review(
                statement,
                "MWB103",
                f"{what} is not consumed by a forward in this function; set it right before the consuming call",
            )
        elif len(after) > 1:
            self.review(
                statement,
                "MWB103",
                f"{what} is consumed by the first of {len(after)} later forwards only; re-set it before each",
            )
        else:
            plan = self._write_plans.get(id(statement))
            if isinstance(plan, Refused):
                self.review(
                    statement,
                    "MWB116",
                    f"{what} not moved next to its consuming call: {plan.reason}; move it there by hand once that is safe",
                )
