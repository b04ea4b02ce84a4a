"""Put each one-shot override on the line before the call that consumes it, as upstream did.

    batch.seq_lens_cpu_cache = spec_info.seq_lens_cpu      if batch.has_grammar:
    if batch.has_grammar:                              ->      ...
        ...                                                batch.seq_lens_cpu_cache = spec_info.seq_lens_cpu
    out = self.worker.forward_batch_generation(batch)      out = self.worker.forward_batch_generation(batch)

    assert batch.capture_hidden_mode == LAST           ->  forward_batch = ForwardBatch.init_new(batch, runner)
    forward_batch = ForwardBatch.init_new(batch, runner)   assert forward_batch.capture_hidden_mode == LAST

    forward_batch = ForwardBatch.init_new(batch, r)    ->  batch.return_hidden_states_before_norm = True
    forward_batch.return_hidden_states_before_norm = True  forward_batch = ForwardBatch.init_new(batch, r)

The first is what worker-batch-calls leaves of `get_model_worker_batch(seq_lens_cpu_cache=E)` and of
writes on the old object; the second reads the mode the old object derived, which the batch no
longer holds before `init_new`. Several overrides for one call keep their order. Comments above a
moved write travel with it; those above the consuming call stay above the group. Those above a
moved assert stay where they were, above the `init_new` it now follows: they introduce the forward
batch it checks (often one handed on from the deleted `get_model_worker_batch()` line).

Refused, leaving the code where it is, whenever `analysis.override_sites` cannot prove the move
safe: in between, another consuming call, a read or write of the field, the batch handed to a
call, a rebinding of the batch or of a name the value reads, or a `return`/`break`/`yield`; the
value or assertion calling a function or reading the batch; the consuming call in another block.
A forward-batch write moves only from the line right after `init_new`, only onto the live batch, and
only up to 0.5.13's target (from 0.5.16 the write stays where it is: valid on the forward batch). semantic-review judges with the same plans, so such a site
carries its marker (MWB103, MWB104, MWB116) and a moved one carries none.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Sequence

import libcst as cst
import libcst.matchers as m
from libcst.codemod import CodemodContext

from mwbmigrate.analysis.names import ONE_SHOT_OVERRIDES
from mwbmigrate.analysis.override_sites import (
    CONSUMING_CALLS,
    DERIVED_MODE,
    OVERRIDE_MOVES,
    UNMOVABLE_CODES,
    AssertMove,
    BlockPlan,
    derived_mode_assert,
    function_blocks,
    kept_snapshots,
    override_write,
    plan_block,
)
from mwbmigrate.analysis.target_versions import overrides_are_arguments
from mwbmigrate.codemods._shared import leading_lines
from mwbmigrate.codemods.base import OLD_API, REPORTS, MigrationCodemod, MigrationState


def _split_leading(lines: Sequence[cst.EmptyLine]) -> tuple[list[cst.EmptyLine], list[cst.EmptyLine]]:
    """(the blank lines that open a statement's leading lines, the comment block after them)."""
    lines = list(lines)
    first_comment = next((i for i, line in enumerate(lines) if line.comment is not None), len(lines))
    return lines[:first_comment], lines[first_comment:]


def _own_comments(statement: cst.BaseStatement) -> list[cst.EmptyLine]:
    return _split_leading(leading_lines(statement))[1]


def _assert_on(statement: cst.SimpleStatementLine, forward_batch: str) -> cst.SimpleStatementLine:
    """`assert batch.capture_hidden_mode == M` -> `assert forward_batch.capture_hidden_mode == M`."""
    assertion = cst.ensure_type(statement.body[0], cst.Assert)
    comparison = cst.ensure_type(assertion.test, cst.Comparison)
    mode = m.Attribute(value=m.Name(), attr=m.Name(DERIVED_MODE))

    def on_forward_batch(side: cst.BaseExpression) -> cst.BaseExpression:
        return side.with_changes(value=cst.Name(forward_batch)) if m.matches(side, mode) else side

    target = comparison.comparisons[0]
    comparison = comparison.with_changes(
        left=on_forward_batch(comparison.left),
        comparisons=[target.with_changes(comparator=on_forward_batch(target.comparator))],
    )
    return statement.with_changes(body=[assertion.with_changes(test=comparison)])


def _onto_batch(statement: cst.SimpleStatementLine, batch: str) -> cst.SimpleStatementLine:
    """`forward_batch.F = V` -> `batch.F = V`."""
    assign = cst.ensure_type(statement.body[0], cst.Assign)
    target = assign.targets[0].target.with_changes(value=cst.Name(batch))
    return statement.with_changes(body=[assign.with_changes(targets=[assign.targets[0].with_changes(target=target)])])


@dataclass
class _Rewrite:
    """A block's new order: statements gathered before or after a consuming statement."""

    before: dict[int, list[tuple[int, cst.SimpleStatementLine | None]]] = field(default_factory=dict)
    after: dict[int, list[tuple[int, AssertMove]]] = field(default_factory=dict)
    onto_batch: dict[int, str] = field(default_factory=dict)

    @classmethod
    def of(cls, plan: BlockPlan) -> _Rewrite | None:
        rewrite = cls()
        for index, consumer in sorted(plan.writes.items()):
            if isinstance(consumer, int):
                rewrite.before.setdefault(consumer, []).append((index, None))
        in_place = all(
            [i for i, _ in members] == list(range(consumer - len(members), consumer))
            for consumer, members in rewrite.before.items()
        )
        for index, batch in sorted(plan.forwards.items()):
            rewrite.before.setdefault(index - 1, []).append((index, None))
            rewrite.onto_batch[index] = batch
        for index, move in sorted(plan.asserts.items()):
            if isinstance(move, AssertMove):
                rewrite.after.setdefault(move.consumer, []).append((index, move))
        if in_place and not rewrite.onto_batch and not rewrite.after:
            return None  # every write already sits right before its call: a second run is a no-op
        return rewrite

    def moved(self) -> set[int]:
        return {i for members in self.before.values() for i, _ in members} | {
            i for members in self.after.values() for i, _ in members
        }

    def apply(self, body: Sequence[cst.BaseStatement]) -> list[cst.BaseStatement]:
        moved = self.moved()
        asserts = {i for members in self.after.values() for i, _ in members}
        result: list[cst.BaseStatement] = []
        freed: list[cst.EmptyLine] = []  # lines above a statement that moved away, and stay
        for index, statement in enumerate(body):
            if index in moved:
                freed.extend(
                    leading_lines(statement) if index in asserts else _split_leading(leading_lines(statement))[0]
                )
                continue
            own = list(leading_lines(statement))
            if any(line.comment is not None for line in freed):
                leading = [*freed, *own[len(_split_leading(own)[0]) :]] if own else freed
            else:
                leading = own or freed
            freed = []
            group = [self._moved_statement(body, i) for i, _ in self.before.get(index, [])]
            if group:
                # The consuming call's blank lines and comment now open the group of overrides.
                group[0] = group[0].with_changes(leading_lines=[*leading, *group[0].leading_lines])
                result.extend(group)
                result.append(statement.with_changes(leading_lines=[]))
            else:
                result.append(statement.with_changes(leading_lines=leading))
            for i, move in self.after.get(index, []):
                assertion = cst.ensure_type(body[i], cst.SimpleStatementLine)  # a derived-mode assert
                result.append(_assert_on(assertion, move.forward_batch).with_changes(leading_lines=[]))
        return result

    def _moved_statement(self, body: Sequence[cst.BaseStatement], index: int) -> cst.SimpleStatementLine:
        # An override write or a forward-batch write: a simple statement line.
        statement = cst.ensure_type(body[index], cst.SimpleStatementLine).with_changes(
            leading_lines=_own_comments(body[index])
        )
        batch = self.onto_batch.get(index)
        return _onto_batch(statement, batch) if batch is not None else statement


class MoveOverridesToTheirForward(MigrationCodemod):
    CODE, NAME = OVERRIDE_MOVES
    SUMMARY = "Move one-shot override writes to the line before their consuming call, and derived-mode asserts onto the forward batch after init_new."
    TRIGGERS = OLD_API
    BODY_WORDS = (*ONE_SHOT_OVERRIDES, *sorted(CONSUMING_CALLS))  # the writes it moves, and what consumes them
    REQUIRES = REPORTS
    METADATA_DEPENDENCIES = ()  # reads no scopes: its plans are syntactic (analysis.override_sites)

    @classmethod
    def applies_to(cls, text: str, state: MigrationState) -> bool:
        return any(name in text for name in ONE_SHOT_OVERRIDES)

    def __init__(self, context: CodemodContext) -> None:
        super().__init__(context)
        self._rewrites: dict[int, _Rewrite] = {}  # id(original block) -> its new order

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        blocks, calls = function_blocks(node)
        consuming_lines = [self.line_of(call) for call in calls]
        # A snapshot kept in code is the old object: a write on it stays a field write where it
        # was, and the snapshot keeps it through every forward, as the old object did.
        kept = kept_snapshots(node)

        def single_consumer(statement: cst.CSTNode) -> bool:
            line = self.line_of(statement)
            return sum(1 for c in consuming_lines if c >= line) == 1

        def write_site(statement: cst.CSTNode) -> tuple[str, cst.BaseExpression, set[str]] | None:
            write = override_write(statement) if not self._judged_unmovable(statement) else None
            if write is None or write.receiver in kept:
                return None
            return (write.field, write.value, {write.receiver})

        def assert_names(statement: cst.CSTNode) -> set[str] | None:
            receiver = derived_mode_assert(statement) if not self._judged_unmovable(statement) else None
            return {receiver.value} if receiver is not None and receiver.value not in kept else None

        for block in blocks:
            plan = plan_block(
                block.body,
                write_site,
                assert_names,
                single_consumer,
                kept=frozenset(kept),
                forward_writes=not overrides_are_arguments(self.state.target_version),
            )
            rewrite = _Rewrite.of(plan)
            if rewrite is not None:
                self._rewrites[id(block)] = rewrite

    def _judged_unmovable(self, statement: cst.CSTNode) -> bool:
        """semantic-review judged this line on the code before the renames (its refusals,
        `analysis.override_sites.UNMOVABLE_CODES`, are findings on it); where a rename there went
        another way than the plan expects, its verdict stands."""
        return self.reported_on(statement, UNMOVABLE_CODES)

    def leave_IndentedBlock(
        self, original_node: cst.IndentedBlock, updated_node: cst.IndentedBlock
    ) -> cst.IndentedBlock:
        rewrite = self._rewrites.pop(id(original_node), None)
        if rewrite is None:
            return updated_node
        return updated_node.with_changes(body=rewrite.apply(list(updated_node.body)))
