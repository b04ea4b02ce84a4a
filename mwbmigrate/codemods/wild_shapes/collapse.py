"""Shape 1 with --collapse-compat: each version gate becomes the side that runs on 0.5.13.
Fixtures: shape01_*/after-collapse.py (shape01_collapse_unresolved_gates, shape01_env_switch_kept, ...).

    if hasattr(batch, "get_model_worker_batch"):        # before
        model_worker_batch = batch.get_model_worker_batch()
        worker.forward_batch_generation(model_worker_batch)
    else:
        worker.forward_batch_generation(batch)

    worker.forward_batch_generation(batch)              # after

The engine calls `collapse_version_gates` before the first codemod; what it cannot resolve stays,
and the gates reporter marks it MWB154.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TypeVar

import libcst as cst
from libcst.metadata import Assignment, ClassScope, GlobalScope, MetadataWrapper, ScopeProvider

from mwbmigrate.analysis.version_gates import (
    CATCHES_MISSING_NAME,
    NewWorld,
    VersionGates,
    feature_check,
    following,
    handler_types,
    leaves_block,
    mentions_gate,
    new_api_bool,
    new_api_value,
    simple_statements,
    string_value,
    uses_old_api,
)
from mwbmigrate.codemods.base import (
    MigrationState,
    comments_above_later_branches,
    deleted,
    is_deleted,
    kept_branch,
    settle_block,
    settle_module,
    test_comments,
    tidy_block_start,
)
from mwbmigrate.codemods.wild_shapes.facts import code, method_classes

CSTNodeT = TypeVar("CSTNodeT", bound=cst.CSTNode)


def collapse_version_gates(module: cst.Module, state: MigrationState) -> cst.Module:
    """`if hasattr(batch, "get_model_worker_batch"): <old> else: <new>` -> `<new>`; a guarded
    `try: from ... import ModelWorkerBatch / except ImportError: ModelWorkerBatch = None` -> removed
    once nothing reads the name; `ModelWorkerBatch is not None and isinstance(x, ModelWorkerBatch)`
    -> False, as on 0.5.13. A gate whose new-API side cannot be told is left (wild-shapes: MWB154).
    """
    wrapper = state.metadata_for(module)
    collapsed: cst.Module = wrapper.visit(
        _CollapseTests(state.version_gates(module), _new_world(wrapper, state.version_gates(module)))
    )
    if collapsed.deep_equals(module):
        return module
    # Second round, on the collapsed module: the guarded imports and the local feature-check
    # flags nothing reads any more.
    wrapper = state.metadata_for(collapsed)
    collapsed = wrapper.visit(_CollapseImports(state.version_gates(collapsed)))
    dropped: cst.Module = state.metadata_for(collapsed).visit(_DropDeadFlags())
    return dropped


def _new_world(wrapper: MetadataWrapper, gates: VersionGates) -> NewWorld:
    scopes = wrapper.resolve(ScopeProvider)
    # id(Name bound by a plain assignment in a guarded try) -> the literal it gets on 0.5.13
    # ("True", "False", "None"), or None when that assignment does not run there (or is no literal).
    on_new_api: dict[int, str | None] = {}
    for statement in _guarded_trys(gates):
        handler = _handler_on_new_api(statement)
        for block, runs in ((statement.body, False), *((h.body, h is handler) for h in statement.handlers)):
            smalls = simple_statements(block)
            if block is statement.body:  # what runs before the import that fails runs on 0.5.13 too
                first = next((i for i, small in enumerate(smalls) if small in gates.guarded_imports), 0)
                smalls = smalls[first:]
            for small in smalls:
                if (
                    isinstance(small, cst.Assign)
                    and len(small.targets) == 1
                    and isinstance(small.targets[0].target, cst.Name)
                ):
                    literal = small.value.value if isinstance(small.value, cst.Name) else None
                    on_new_api[id(small.targets[0].target)] = (
                        literal if runs and literal in ("True", "False", "None") else None
                    )
    module_scope = scopes.get(wrapper.module)
    none_names = set()
    for name in gates.guarded_names:
        # None on 0.5.13 only when every binding besides the import is the handler's `= None`.
        bindings = (
            [
                a
                for a in module_scope.assignments[name]
                if isinstance(a, Assignment) and not isinstance(a.node, cst.ImportFrom)
            ]
            if module_scope
            else []
        )
        if bindings and all(on_new_api.get(id(a.node)) == "None" for a in bindings):
            none_names.add(name)
    world = NewWorld(none_names=frozenset(none_names), own_old_method=bool(method_classes(wrapper.module)))
    flag_values: dict[int, bool | None] = {}

    def name_value(node: cst.BaseExpression) -> bool | None:
        """A flag bound once, from a test whose value on 0.5.13 is known (or a guarded try's handler)."""
        if not isinstance(node, cst.Name):
            return None  # attributes (`self.legacy`) can be rebound anywhere
        scope = scopes.get(node)
        if scope is None:
            return None
        bound = list(scope[node.value])
        targets = [a.node for a in bound if isinstance(a, Assignment) and isinstance(a.node, cst.Name)]
        if not bound or len(targets) != len(bound):
            return None  # a builtin, an import, a parameter, a `for` target...: not a flag
        if all(id(target) in on_new_api for target in targets):
            # A flag set in a guarded try: its value is what the handler sets (the one that runs).
            literals = [literal for target in targets if (literal := on_new_api[id(target)]) is not None]
            return {"True": True, "False": False, "None": False}[literals[0]] if len(literals) == 1 else None
        if len(targets) != 1:
            return None
        key = id(targets[0])
        if key not in flag_values:
            flag_values[key] = None  # a cycle reads as unknown
            value = _assigned_value(wrapper.module, targets[0])
            flag_values[key] = new_api_value(value, world) if value is not None else None
        return flag_values[key]

    return NewWorld(none_names=world.none_names, names=name_value, own_old_method=world.own_old_method)


def _assigned_value(module: cst.Module, target: cst.Name) -> cst.BaseExpression | None:
    """The value of `target = value` (a plain, single-target assignment), found by identity."""

    class _Find(cst.CSTVisitor):
        value: cst.BaseExpression | None = None

        def visit_Assign(self, node: cst.Assign) -> None:
            if len(node.targets) == 1 and node.targets[0].target is target:
                self.value = node.value

    finder = _Find()
    module.visit(finder)
    return finder.value


def _guarded_trys(gates: VersionGates) -> list[cst.Try]:
    return [g.statement for g in gates.gates if isinstance(g.statement, cst.Try)]


def _handler_on_new_api(node: cst.Try) -> cst.ExceptHandler | None:
    """The handler that runs when 0.5.13 raises ImportError for the guarded name: the first that
    catches it, if every one before it is known not to (ModuleNotFoundError does not)."""
    for handler in node.handlers:
        types = handler_types(handler)
        if types is None or types & CATCHES_MISSING_NAME:
            return handler
        if not types <= {"ModuleNotFoundError", "AttributeError", "TypeError", "ValueError", "KeyError", "OSError"}:
            return None
    return None


def _as_statements(
    block: cst.BaseSuite, leading: Sequence[cst.EmptyLine], after: Sequence[cst.EmptyLine] = ()
) -> list[cst.BaseStatement]:
    return kept_branch(leading, block, after) if block.body else []


def _branch_leading(statement: cst.If, branch: cst.If | cst.Else) -> list[cst.EmptyLine]:
    """The lines above the gate, then those above the `elif`/`else` that stays (about that branch)."""
    return [*statement.leading_lines, *(branch.leading_lines if branch is not statement else ())]


class _TidyBlocks(cst.CSTTransformer):
    """A block whose first statement went starts without the blank lines that followed it, and a
    block left empty holds `pass`."""

    def leave_IndentedBlock(
        self, original_node: cst.IndentedBlock, updated_node: cst.IndentedBlock
    ) -> cst.IndentedBlock:
        block = settle_block(original_node, updated_node)  # hands deleted statements' comments on
        return block.with_changes(body=tidy_block_start(original_node.body, block.body))

    def leave_Module(self, original_node: cst.Module, updated_node: cst.Module) -> cst.Module:
        module = settle_module(updated_node)
        return module.with_changes(body=tidy_block_start(original_node.body, module.body))


class _CollapseTests(_TidyBlocks):
    """Gated `if` statements and conditional expressions become their side that runs on 0.5.13."""

    METADATA_DEPENDENCIES = (ScopeProvider,)

    def __init__(self, gates: VersionGates, world: NewWorld) -> None:
        super().__init__()
        self.gates = {id(g.statement): g for g in gates.gates}
        self.gate_nodes = [g.statement for g in gates.gates]  # keeps the ids above taken
        self.world = world
        self.blocks: list[cst.CSTNode] = []
        self.in_gate = 0  # gate statements around the node

    def on_visit(self, node: cst.CSTNode) -> bool:
        if isinstance(node, (cst.IndentedBlock, cst.Module)):
            self.blocks.append(node)
        if id(node) in self.gates:
            self.in_gate += 1
        return super().on_visit(node)

    def on_leave(
        self, original_node: CSTNodeT, updated_node: CSTNodeT
    ) -> CSTNodeT | cst.RemovalSentinel | cst.FlattenSentinel[CSTNodeT]:
        result = super().on_leave(original_node, updated_node)
        if id(original_node) in self.gates:
            self.in_gate -= 1
        if self.blocks and self.blocks[-1] is original_node:
            self.blocks.pop()
        return result

    def _fold(self, original_node: cst.BaseExpression, updated_node: cst.BaseExpression) -> cst.BaseExpression:
        """`ModelWorkerBatch is not None and isinstance(x, ModelWorkerBatch)` -> `False`, as on 0.5.13."""
        if not self.in_gate or not mentions_gate(original_node, self.world):
            return updated_node
        value = new_api_bool(original_node, self.world)
        if value is None:
            return updated_node
        return cst.Name(str(value), lpar=updated_node.lpar, rpar=updated_node.rpar)

    def leave_BooleanOperation(
        self, original_node: cst.BooleanOperation, updated_node: cst.BooleanOperation
    ) -> cst.BaseExpression:
        return self._fold(original_node, updated_node)

    def leave_Comparison(self, original_node: cst.Comparison, updated_node: cst.Comparison) -> cst.BaseExpression:
        return self._fold(original_node, updated_node)

    def leave_UnaryOperation(
        self, original_node: cst.UnaryOperation, updated_node: cst.UnaryOperation
    ) -> cst.BaseExpression:
        return self._fold(original_node, updated_node)

    def leave_IfExp(self, original_node: cst.IfExp, updated_node: cst.IfExp) -> cst.BaseExpression:
        value = new_api_value(original_node.test, self.world) if self.in_gate else None
        if value is None:
            return updated_node
        kept = updated_node.body if value else updated_node.orelse
        if updated_node.lpar and not kept.lpar:
            kept = kept.with_changes(lpar=updated_node.lpar, rpar=updated_node.rpar)
        return kept

    def leave_If(
        self, original_node: cst.If, updated_node: cst.If
    ) -> cst.BaseStatement | cst.FlattenSentinel[cst.BaseStatement] | cst.RemovalSentinel:
        gate = self.gates.get(id(original_node))
        if gate is None:
            return updated_node
        branch: cst.If | cst.Else | None = updated_node
        original: cst.If = original_node
        first = True
        while isinstance(branch, cst.If):
            value = new_api_value(original.test, self.world)
            if value is None and first and gate.code == "MWB122":
                value = self._environment_side(original_node)
            if value is None:
                if first:
                    return updated_node
                # The branches before were false on 0.5.13: the chain starts here.
                return branch.with_changes(leading_lines=_branch_leading(updated_node, branch))
            if value:
                other = branch.orelse.body if isinstance(branch.orelse, cst.Else) and first else None
                body = _snapshot_twin(branch.body, other) if other is not None else branch.body
                leading = [*_branch_leading(updated_node, branch), *test_comments(branch)]
                return (
                    cst.FlattenSentinel(_as_statements(body, leading, comments_above_later_branches(branch)))
                    if _has_statements(body)
                    else deleted(updated_node)
                )
            branch, first = branch.orelse, False
            if isinstance(branch, cst.If):
                if not isinstance(original.orelse, cst.If):
                    return updated_node  # (never: the updated chain runs in step with the original)
                original = original.orelse
        if isinstance(branch, cst.Else) and _has_statements(branch.body):
            two_sided = isinstance(updated_node.orelse, cst.Else)
            body = _snapshot_twin(branch.body, updated_node.body) if two_sided else branch.body
            return cst.FlattenSentinel(_as_statements(body, _branch_leading(updated_node, branch)))
        return deleted(updated_node)  # no branch runs on 0.5.13: the comments above the gate stay

    def _environment_side(self, node: cst.If) -> bool | None:
        """Which side of an environment or version switch is the new API: the one that does not
        use the old API. Without an `else`, only a body that uses the old API and leaves the block
        can go (what follows is the new side)."""
        if isinstance(node.orelse, cst.If):
            return None
        body_old = uses_old_api(node.body)
        if node.orelse is not None:
            other_old = uses_old_api(node.orelse)
        elif leaves_block(node.body):
            other_old = uses_old_api(*following(self.blocks[-1] if self.blocks else None, node))
            if not body_old:
                return None  # the legacy code follows the gate
        else:
            return None
        return None if body_old == other_old else not body_old


def _snapshot_twin(new_side: cst.BaseSuite, old_side: cst.BaseSuite) -> cst.BaseSuite:
    """The old side's snapshot when the gate only chose between `x = b.get_model_worker_batch()` and its
    alias `x = b`: the original ran the old side on the old API, so the snapshot is what the
    migration must keep the meaning of, and worker-batch-calls folds it into `b` where that is
    safe, as it does for any snapshot (no `x = b` alias is left for `x` to stand in for `b`)."""
    new_assign, old_assign = _single_assign(new_side), _single_assign(old_side)
    if new_assign is None or old_assign is None:
        return new_side
    (new_target, new_value), (old_target, old_value) = new_assign, old_assign
    if code(new_target) != code(old_target) or not isinstance(new_target, cst.Name):
        return new_side
    if not (
        isinstance(old_value, cst.Call)
        and not old_value.args
        and isinstance(old_value.func, cst.Attribute)
        and old_value.func.attr.value == "get_model_worker_batch"
        and code(old_value.func.value) == code(new_value)
    ):
        return new_side
    # The new side's statement and comments, with the old side's value: what the side that no
    # longer runs says about itself goes with it.
    return cst.ensure_type(new_side.deep_replace(new_value, old_value), type(new_side))


def _single_assign(block: cst.BaseSuite) -> tuple[cst.BaseExpression, cst.BaseExpression] | None:
    statements = block.body if isinstance(block, cst.IndentedBlock) else [block]
    if len(statements) != 1:
        return None
    line = statements[0]
    small = line.body if isinstance(line, (cst.SimpleStatementLine, cst.SimpleStatementSuite)) else None
    if not small or len(small) != 1 or not isinstance(small[0], cst.Assign) or len(small[0].targets) != 1:
        return None
    return small[0].targets[0].target, small[0].value


def _has_statements(block: cst.BaseSuite) -> bool:
    return bool(block.body)


class _CollapseImports(_TidyBlocks):
    """A guarded `try` becomes its handler (less the `None` fallbacks) once nothing reads the names."""

    def __init__(self, gates: VersionGates) -> None:
        super().__init__()
        self._all_names: set[str] = set()
        self.gates = gates
        self.trys = [g.statement for g in gates.gates if isinstance(g.statement, cst.Try)]

    def leave_Try(
        self, original_node: cst.Try, updated_node: cst.Try
    ) -> cst.BaseStatement | cst.FlattenSentinel[cst.BaseStatement] | cst.RemovalSentinel:
        if not any(t is original_node for t in self.trys):
            return updated_node
        first = (
            original_node.body.body[0]
            if isinstance(original_node.body, cst.IndentedBlock) and original_node.body.body
            else None
        )
        if not (isinstance(first, cst.SimpleStatementLine) and first.body[0] in self.gates.guarded_imports):
            return updated_node  # something runs before the import: it may raise, too
        handler = _handler_on_new_api(original_node)
        if handler is None or handler.name is not None:
            return updated_node
        names = self._guarded_names_of(original_node)
        if names is None:
            return updated_node
        kept: list[cst.BaseStatement] = []
        for line in _as_statements(handler.body, handler.leading_lines):
            if isinstance(line, cst.SimpleStatementLine) and not is_deleted(line):
                body = [s for s in line.body if not _binds_only(s, names)]
                if not body:
                    kept.append(deleted(line))  # `ModelWorkerBatch = None`: its comments stay
                    continue
                line = line.with_changes(body=[*body[:-1], body[-1].with_changes(semicolon=cst.MaybeSentinel.DEFAULT)])
            kept.append(line)
        if original_node.finalbody is not None:
            kept += _as_statements(original_node.finalbody.body, ())
        if all(is_deleted(s) for s in kept):
            return deleted(updated_node)  # nothing of it runs on 0.5.13: it goes whole
        kept[0] = kept[0].with_changes(
            leading_lines=[*updated_node.leading_lines, *getattr(kept[0], "leading_lines", ())]
        )
        return cst.FlattenSentinel(kept)

    def _guarded_names_of(self, node: cst.Try) -> set[str] | None:
        """The names this try's guarded import binds, when nothing outside the try reads them and
        no `__all__` exports them; None otherwise."""
        names: set[str] = set()
        for statement in simple_statements(node.body):
            if isinstance(statement, cst.ImportFrom) and statement in self.gates.guarded_imports:
                if isinstance(statement.names, cst.ImportStar):
                    return None  # what it binds cannot be told
                for alias in statement.names:
                    names.add(code(alias.asname.name) if alias.asname else code(alias.name))
        inside: set[int] = set()

        class _Inside(cst.CSTVisitor):
            def visit_Name(self, name: cst.Name) -> None:
                inside.add(id(name))

        node.visit(_Inside())
        for name in names:
            for use in self.gates.guarded_names.get(name, ()):
                if id(use) not in inside:
                    return None
        # A name `__all__` exports may be imported from here by other modules: it stays.
        return None if names & self._all_names else names

    def visit_Module(self, node: cst.Module) -> None:
        self._all_names = set()
        for statement in node.body:
            for small in statement.body if isinstance(statement, cst.SimpleStatementLine) else ():
                if isinstance(small, (cst.Assign, cst.AugAssign, cst.AnnAssign)):
                    targets = [t.target for t in small.targets] if isinstance(small, cst.Assign) else [small.target]
                    if (
                        any(isinstance(t, cst.Name) and t.value == "__all__" for t in targets)
                        and small.value is not None
                    ):
                        self._all_names |= {
                            v for e in getattr(small.value, "elements", ()) if (v := string_value(e.value))
                        }


def _binds_only(statement: cst.BaseSmallStatement, names: set[str]) -> bool:
    return isinstance(statement, cst.Assign) and all(
        isinstance(t.target, cst.Name) and t.target.value in names for t in statement.targets
    )


class _DropDeadFlags(_TidyBlocks):
    """`flag = getattr(batch, "get_model_worker_batch", None)` in a function, read by nothing once its
    tests were collapsed, goes. (A module-level flag stays: other modules may import it.)"""

    METADATA_DEPENDENCIES = (ScopeProvider,)

    def leave_SimpleStatementLine(
        self, original_node: cst.SimpleStatementLine, updated_node: cst.SimpleStatementLine
    ) -> cst.BaseStatement | cst.FlattenSentinel[cst.BaseStatement] | cst.RemovalSentinel:
        if len(original_node.body) != 1 or not isinstance(original_node.body[0], cst.Assign):
            return updated_node
        assign = original_node.body[0]
        if (
            len(assign.targets) != 1
            or not isinstance(assign.targets[0].target, cst.Name)
            or not _pure_feature_check(assign.value)
        ):
            return updated_node
        target = assign.targets[0].target
        scope = self.get_metadata(ScopeProvider, target, None)
        if scope is None or isinstance(scope, (GlobalScope, ClassScope)):
            return updated_node
        if any(a.references for a in scope.assignments[target.value]) or target.value in getattr(
            scope, "_nonlocal_names", ()
        ):
            return updated_node
        return deleted(updated_node)


def is_flag_definition(statement: cst.CSTNode) -> bool:
    """`HAS_OLD = hasattr(ScheduleBatch, "get_model_worker_batch")`: a flag, not old-API code."""
    if not isinstance(statement, cst.SimpleStatementLine) or len(statement.body) != 1:
        return False
    small = statement.body[0]
    return (
        isinstance(small, cst.Assign)
        and len(small.targets) == 1
        and isinstance(small.targets[0].target, cst.Name)
        and _pure_feature_check(small.value)
    )


def _pure_feature_check(node: cst.BaseExpression) -> bool:
    """`hasattr`/`getattr(x, "get_model_worker_batch"[, None])` on a name or attribute: dropping it changes nothing."""
    if not isinstance(node, cst.Call) or feature_check(node) is None:
        return False
    return all(
        isinstance(a.value, (cst.Name, cst.Attribute, cst.SimpleString)) and a.keyword is None for a in node.args
    )
