"""Keep every `isinstance(x, ModelWorkerBatch)` test taking the branch it took before the migration.

After the migration the old object is the ScheduleBatch it came from, so what to do depends on what
`x` held (read before any rename erases it):

- only the old object (a `model_worker_batch` parameter, one annotated with the class, a local bound
  from `get_model_worker_batch()`): the test was true for it and must stay true. Nothing is edited
  here; class-references makes it `isinstance(x, ScheduleBatch)`.
- only ScheduleBatches (annotated `ScheduleBatch`): the test was always false. A plain `if` test
  loses its branch, keeps its `else`; anywhere else the test becomes `False` (MWB110).
- both (a `Union[ScheduleBatch, ModelWorkerBatch]` parameter, `x.get_model_worker_batch()` called,
  or `x` also tested against ScheduleBatch): the two cannot be told apart any more. A plain `if`
  test loses its branch as upstream did (every caller now takes the ScheduleBatch path); anywhere
  else it tests ScheduleBatch. Either way MWB150 says which callers changed path.
- anything else: it tests ScheduleBatch, which keeps the old object's branch, and MWB150 says a
  ScheduleBatch that reached here before now takes that branch too.

    def forward(self, batch: Union[ScheduleBatch, ModelWorkerBatch]):
        if isinstance(batch, ModelWorkerBatch):
            return fallback(batch)
        run(batch)
->
    def forward(self, batch: ScheduleBatch):
        run(batch)  # mwbmigrate: MWB150 ...

`isinstance(x, (ScheduleBatch, ModelWorkerBatch))` only loses the old class: it matched both before
and matches the one left now.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum
from typing import Sequence, TypeVar, cast

import libcst as cst
import libcst.matchers as m
from libcst.codemod import CodemodContext
from libcst.metadata import QualifiedNameSource, ScopeProvider

from mwbmigrate.analysis.old_api import NEW_CLASS, OLD_CLASS, OLD_METHOD, is_sglang_schedule_batch_module
from mwbmigrate.analysis.receivers import FunctionFacts, all_params
from mwbmigrate.codemods._shared import PASS_LINE, function_facts
from mwbmigrate.codemods.base import (
    REPORTS,
    MigrationCodemod,
    comments_above_later_branches,
    deleted,
    kept_branch,
    settle_block,
    settle_module,
    test_comments,
)

_Node = TypeVar("_Node", bound=cst.CSTNode)


class Reach(Enum):
    """What the tested value held before the migration."""

    OLD = "old"  # only the old object (or None)
    NEW = "new"  # only ScheduleBatches (or None)
    BOTH = "both"  # either
    UNKNOWN = "unknown"


@dataclass
class _Subjects:
    """Spellings of tested values, by what they held, in one function (or the module)."""

    old: set[str] = field(default_factory=set)
    new: set[str] = field(default_factory=set)
    both: set[str] = field(default_factory=set)


def _code(node: cst.CSTNode) -> str:
    """Source of a node on one line (a marker is one line)."""
    text = " ".join(cst.Module([]).code_for_node(node).split())
    return text.replace("( ", "(").replace(", )", ")") if isinstance(node, cst.Tuple) else text


def _isinstance_args(node: cst.CSTNode) -> tuple[cst.BaseExpression, cst.BaseExpression] | None:
    if isinstance(node, cst.Call) and m.matches(
        node, m.Call(func=m.Name("isinstance"), args=[m.Arg(keyword=None, star=""), m.Arg(keyword=None, star="")])
    ):
        return node.args[0].value, node.args[1].value
    return None


def _kept_only(facts: FunctionFacts) -> set[str]:
    """Locals bound only where a snapshot is kept (`mwb = batch.get_model_worker_batch()`, kept in
    code): they hold the old object, whatever the analysis could not prove about the live batch."""
    kept: dict[str, int] = {}
    for statement in facts.kept:
        line = statement if isinstance(statement, cst.SimpleStatementLine) else None
        assign = line.body[0] if line is not None and len(line.body) == 1 else None
        if (
            isinstance(assign, cst.Assign)
            and len(assign.targets) == 1
            and isinstance(assign.targets[0].target, cst.Name)
        ):
            name = assign.targets[0].target.value
            kept[name] = kept.get(name, 0) + 1
    if facts.scope is None:
        return set()
    return {name for name, count in kept.items() if len(list(facts.scope.assignments[name])) == count}


class DropOldClassInstanceChecks(MigrationCodemod):
    CODE = "MWB008"
    NAME = "isinstance-checks"
    SUMMARY = "Keep `isinstance(x, ModelWorkerBatch)` tests on the branch they took: test ScheduleBatch where `x` held the old object, delete the branch where it held a ScheduleBatch, report where it held either."
    TRIGGERS = (OLD_CLASS,)
    REQUIRED_WORDS = ("isinstance", "case ")  # a class pattern tests the class as `isinstance` does
    REVIEW_CODES = ("MWB110", "MWB150")
    REQUIRES = REPORTS
    METADATA_DEPENDENCIES = (ScopeProvider,)

    def __init__(self, context: CodemodContext) -> None:
        super().__init__(context)
        self._subjects: list[_Subjects] = []
        # The comments above an `elif` deleted with nothing after it, by the `if` owning it (by id).
        self._orphaned: dict[int, list[cst.EmptyLine]] = {}
        self._matches: list[cst.Match] = []
        # Per function: locals bound only where a snapshot is kept (the old object). A class pattern
        # on one matches as before; worker-batch-calls judges an `isinstance` of one (reflection).
        self._kept: list[set[str]] = []

    # -- what each tested value held ---------------------------------------------------------------
    def visit_Module(self, node: cst.Module) -> None:
        self._subjects.append(self._evidence(node, _Subjects()))

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        facts = function_facts(self, node)
        subjects = _Subjects(old={p.name.value for p in facts.old_params} | set(facts.aliases))
        self._kept.append(_kept_only(facts))
        for param in all_params(node.params):
            if param.annotation is None:
                continue
            names_old, names_new = self._mentions(param.annotation.annotation)
            if names_old and names_new:
                subjects.both.add(param.name.value)
            elif names_new:
                subjects.new.add(param.name.value)
        self._subjects.append(self._evidence(node.body, subjects))

    def leave_FunctionDef(self, original_node: cst.FunctionDef, updated_node: cst.FunctionDef) -> cst.FunctionDef:
        self._subjects.pop()
        self._kept.pop()
        return updated_node

    def _evidence(self, body: cst.CSTNode, subjects: _Subjects) -> _Subjects:
        """Values that held ScheduleBatches too: `x.get_model_worker_batch()` is only ScheduleBatch's
        method, and `isinstance(x, ScheduleBatch)` beside the old test handles both."""
        codemod = self

        class _Evidence(cst.CSTVisitor):
            def visit_Call(self, node: cst.Call) -> None:
                if isinstance(node.func, cst.Attribute) and node.func.attr.value == OLD_METHOD:
                    subjects.both.add(_code(node.func.value))
                args = _isinstance_args(node)
                if args is not None and codemod._mentions(args[1])[1]:
                    subjects.both.add(_code(args[0]))

        body.visit(_Evidence())
        return subjects

    def _reach(self, subject: cst.BaseExpression) -> Reach:
        subjects = self._subjects[-1] if self._subjects else _Subjects()
        key = _code(subject)
        if key in subjects.both:
            return Reach.BOTH
        if isinstance(subject, cst.Name) and key in subjects.old:
            return Reach.OLD
        if isinstance(subject, cst.Name) and key in subjects.new:
            return Reach.NEW
        return Reach.UNKNOWN

    def _names_new_class(self, node: cst.CSTNode) -> bool:
        scope = self.get_metadata(ScopeProvider, node, None)
        if scope is None:
            return False
        for qualified in scope.get_qualified_names_for(node):
            module, _, name = qualified.name.rpartition(".")
            if name != NEW_CLASS:
                continue
            if qualified.source is QualifiedNameSource.IMPORT and is_sglang_schedule_batch_module(
                module, self.state.location
            ):
                return True
            if (
                qualified.source is QualifiedNameSource.LOCAL
                and not module
                and self.state.location.is_schedule_batch_module
            ):
                return True
        return False

    def _mentions(self, expression: cst.BaseExpression) -> tuple[bool, bool]:
        """(names the old class, names ScheduleBatch) anywhere in a type expression or class tuple."""
        found = [False, False]
        codemod = self

        class _Classes(cst.CSTVisitor):
            def visit_Name(self, node: cst.Name) -> None:
                self._check(node)

            def visit_Attribute(self, node: cst.Attribute) -> None:
                self._check(node)

            def _check(self, node: cst.CSTNode) -> None:
                found[0] = found[0] or codemod.names_old_class(node)
                found[1] = found[1] or codemod._names_new_class(node)

        expression.visit(_Classes())
        return found[0], found[1]

    # -- the tests -----------------------------------------------------------------------------------
    def _single_old_test(self, node: cst.BaseExpression) -> cst.BaseExpression | None:
        """The subject of `isinstance(x, ModelWorkerBatch)` (one class, or a tuple of only it)."""
        args = _isinstance_args(node)
        if args is None:
            return None
        checked = args[1]
        if isinstance(checked, cst.Tuple) and checked.elements:
            return args[0] if all(self.names_old_class(e.value) for e in checked.elements) else None
        return args[0] if self.names_old_class(checked) else None

    def _plain_if_test(self, call: cst.Call) -> bool:
        """`if isinstance(...)` or `if not isinstance(...)`, `elif` included."""
        test: cst.BaseExpression = call
        parent = self.parent(call)
        if isinstance(parent, cst.UnaryOperation) and isinstance(parent.operator, cst.Not):
            test, parent = parent, self.parent(parent)
        return isinstance(parent, cst.If) and parent.test is test

    def leave_Call(self, original_node: cst.Call, updated_node: cst.Call) -> cst.BaseExpression:
        args = _isinstance_args(original_node)
        if args is None:
            return updated_node
        subject, checked = args
        names_old, names_new = self._mentions(checked)
        if not names_old:
            return updated_node
        elements = checked.elements if isinstance(checked, cst.Tuple) else None
        single = self._single_old_test(original_node) is not None
        plain = single or (elements is not None and any(self.names_old_class(e.value) for e in elements))
        if plain and not single and names_new and elements is not None:  # (not single: a tuple)
            return self._without_old_class(updated_node, elements)  # matched both before, matches the one left
        reach = self._reach(subject)
        if not plain:
            # The old class nested in a tuple, or in a `Union`/`|` expression: class-references
            # replaces it wherever it is, which is right for the old object only.
            if reach is Reach.OLD:
                return self._old_class_renamed(original_node, updated_node)
            if not names_new:
                self.review(original_node, "MWB150", self._retest_reason(original_node, subject, Reach.UNKNOWN))
            return updated_node
        if reach is Reach.OLD:
            return self._old_class_renamed(
                original_node, updated_node
            )  # still true for the object, now a ScheduleBatch
        if reach is Reach.NEW:
            if not single and elements is not None:  # (not single: a tuple)
                return self._without_old_class(updated_node, elements)
            if self._plain_if_test(original_node):
                return updated_node  # leave_If drops the branch
            self.review(
                original_node,
                "MWB110",
                f"`isinstance({_code(subject)}, {OLD_CLASS})` was always false (`{_code(subject)}` is a ScheduleBatch): replaced by `False`",
            )
            return cst.Name("False")
        if reach is Reach.BOTH and single and self._plain_if_test(original_node):
            return updated_node  # leave_If drops the branch and reports it
        self.review(original_node, "MWB150", self._retest_reason(original_node, subject, reach))
        return updated_node

    # -- class patterns: `case ModelWorkerBatch(...)` is `isinstance` with the class renamed -------------
    def visit_Match(self, node: cst.Match) -> None:
        self._matches.append(node)

    def leave_Match(self, original_node: cst.Match, updated_node: cst.Match) -> cst.Match:
        self._matches.pop()
        return updated_node

    def visit_MatchClass(self, node: cst.MatchClass) -> None:
        """class-references makes the pattern `ScheduleBatch(...)`: right where the subject held only
        the old object; a ScheduleBatch that reached the `match` now takes this case, not a later one.
        (A nested pattern's subject is a part of it, never known: reported.)"""
        if not self._matches or not self.names_old_class(node.cls):
            return
        match = self._matches[-1]
        subject = match.subject
        nested = not any(case.pattern is node for case in match.cases)
        reach = Reach.UNKNOWN if nested else self._reach(subject)
        if (
            reach is Reach.UNKNOWN
            and self._kept
            and m.matches(subject, m.Name(m.MatchIfTrue(self._kept[-1].__contains__)))
        ):
            reach = Reach.OLD
        if reach is Reach.OLD:
            return
        held = "also held ScheduleBatches" if reach is Reach.BOTH else "may hold a ScheduleBatch"
        if reach is Reach.NEW:
            held = "holds a ScheduleBatch"
        self.review(
            node,
            "MWB150",
            f"`case {_code(node.cls)}(...)` now matches ScheduleBatch, not {OLD_CLASS}: "
            f"`{_code(subject)}` {held}, which took a later case before and takes this one now",
        )

    @staticmethod
    def _retest_reason(call: cst.Call, subject: cst.BaseExpression, reach: Reach) -> str:
        test = f"`isinstance({_code(subject)}, {_code(call.args[1].value)})` now tests ScheduleBatch, not {OLD_CLASS}"
        if reach is Reach.BOTH:
            return f"{test}: `{_code(subject)}` also held ScheduleBatches, which it did not match before"
        return f"{test}: right for the old object, but a ScheduleBatch reaching here (if any did) now matches too"

    def _old_class_renamed(self, original: cst.Call, call: cst.Call) -> cst.Call:
        """The test names ScheduleBatch wherever it named the old class, nested tuples and `|` included
        (spelled as class-references spells it; the imports codemod imports it)."""
        codemod = self

        class _Rename(cst.CSTTransformer):
            # Judged on the original nodes, which the metadata belongs to; nothing inside a class
            # expression is changed by this codemod, so the original subtree is the current one.
            def leave_Name(self, original_node: cst.Name, updated_node: cst.Name) -> cst.BaseExpression:
                return (
                    updated_node.with_changes(value=NEW_CLASS)
                    if codemod.names_old_class(original_node)
                    else updated_node
                )

            def leave_Attribute(self, original_node: cst.Attribute, updated_node: cst.Attribute) -> cst.BaseExpression:
                if codemod.names_old_class(original_node):
                    return updated_node.with_changes(attr=cst.Name(NEW_CLASS))
                return updated_node

        args = list(call.args)
        args[1] = args[1].with_changes(value=original.args[1].value.visit(_Rename()))
        return call.with_changes(args=args)

    def _without_old_class(self, call: cst.Call, elements: Sequence[cst.BaseElement]) -> cst.Call:
        kept = [element for element in elements if not self.names_old_class(element.value)]
        if len(kept) == 1:
            new_class: cst.BaseExpression = kept[0].value
        else:
            last = kept[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)
            new_class = call.args[1].value.with_changes(elements=[*kept[:-1], last])
        args = list(call.args)
        args[1] = args[1].with_changes(value=new_class)
        return call.with_changes(args=args)

    # An `elif` may become its parent's `else`, which LibCST accepts in that position but its
    # declared return type for leave_If does not include.
    def leave_If(  # type: ignore[override]
        self, original_node: cst.If, updated_node: cst.If
    ) -> cst.BaseStatement | cst.Else | cst.FlattenSentinel[cst.BaseStatement] | cst.RemovalSentinel:
        orphaned = self._orphaned.pop(id(original_node), None)
        if orphaned is not None:
            updated_node = _with_lines_after_its_branch(updated_node, orphaned)
        test = original_node.test
        negated = isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not)
        subject = self._single_old_test(test.expression if isinstance(test, cst.UnaryOperation) and negated else test)
        if subject is None:
            return updated_node
        reach = self._reach(subject)
        if reach not in (Reach.NEW, Reach.BOTH):
            return updated_node
        reason: str | None = None
        if reach is Reach.BOTH:
            reason = (
                f"`isinstance({_code(subject)}, {OLD_CLASS})` branch deleted as upstream did: `{_code(subject)}` also "
                f"held ScheduleBatches, and callers that passed the old object now pass one and take their path"
            )
        parent = self.parent(original_node)
        if isinstance(parent, cst.If) and parent.orelse is original_node:
            return self._without_elif(parent, updated_node, negated, reason)
        return self._without_if(original_node, parent, updated_node, negated, reason)

    def _marked(self, node: _Node, reason: str | None) -> _Node:
        if reason is None:
            return node
        return cast(_Node, self.review_returned(node, "MWB150", reason))  # which returns `node` itself

    def _without_elif(
        self, parent: cst.If, updated: cst.If, negated: bool, reason: str | None
    ) -> cst.If | cst.Else | cst.RemovalSentinel:
        """`elif isinstance(x, ModelWorkerBatch)` whose test is false now (true when negated)."""
        if negated:
            return self._marked(cst.Else(body=updated.body, leading_lines=updated.leading_lines), reason)
        if updated.orelse is not None:
            # The comments above the `elif` stay above the branch that takes its place.
            leading = [*updated.leading_lines, *updated.orelse.leading_lines]
            return self._marked(updated.orelse.with_changes(leading_lines=leading), reason)
        if reason is not None:
            self.review(parent, "MWB150", reason)
        if any(line.comment is not None for line in updated.leading_lines):
            # Left by the `if` that owns it, which then keeps them after its own branch.
            self._orphaned[id(parent)] = list(updated.leading_lines)
        return cst.RemoveFromParent()

    def _without_if(
        self, original: cst.If, parent: cst.CSTNode | None, updated: cst.If, negated: bool, reason: str | None
    ) -> cst.BaseStatement | cst.FlattenSentinel[cst.BaseStatement] | cst.RemovalSentinel:
        if negated:
            kept: cst.BaseSuite | None = updated.body
        elif isinstance(updated.orelse, cst.Else):
            kept = updated.orelse.body
        elif isinstance(updated.orelse, cst.If):
            # The comments above the `elif` were about the branch that stays.
            leading = [*updated.leading_lines, *updated.orelse.leading_lines]
            return self._marked(updated.orelse.with_changes(leading_lines=leading), reason)
        else:
            kept = None
        if reason is not None and isinstance(parent, cst.IndentedBlock):
            # On the statement that owns the block (a `def`, say): the statements kept or following
            # may still be deleted by a later codemod (a `get_model_worker_batch()` line), with
            # their comments.
            owner = self.parent(parent)
            assert owner is not None  # a block is never the module itself
            self.review(owner, "MWB150", reason)
            reason = None
        if kept is None:
            return self._removed(original, parent, reason)
        above = list(updated.leading_lines)
        after: list[cst.EmptyLine] = []
        if negated:
            above += test_comments(updated)  # the test of the branch that stays
            after = comments_above_later_branches(updated)
        elif isinstance(updated.orelse, cst.Else):
            above += updated.orelse.leading_lines  # those above `else:` are about the branch that stays
        statements = kept_branch(above, kept, after)
        statements[0] = self._marked(statements[0], reason)
        return cst.FlattenSentinel(statements)

    def _removed(
        self, original: cst.If, parent: cst.CSTNode | None, reason: str | None
    ) -> cst.SimpleStatementLine | cst.RemovalSentinel:
        """No branch is left. A block keeps a `pass`; at module level that `pass` carries the report."""
        if len(getattr(parent, "body", ())) > 1 and reason is None:
            return deleted(original)  # what is inside goes with it, the comments above it stay
        return self._marked(PASS_LINE.with_changes(leading_lines=original.leading_lines), reason)

    def leave_IndentedBlock(self, original_node: cst.IndentedBlock, updated_node: cst.IndentedBlock) -> cst.BaseSuite:
        return settle_block(original_node, updated_node)

    def leave_Module(self, original_node: cst.Module, updated_node: cst.Module) -> cst.Module:
        return settle_module(updated_node)


def _with_lines_after_its_branch(statement: cst.If, lines: list[cst.EmptyLine]) -> cst.If:
    """`statement` keeping `lines` (those above an `elif` it no longer has) at the end of its own
    branch; a one-line branch becomes a block to hold them."""
    body = statement.body
    if isinstance(body, cst.SimpleStatementSuite):
        line = cst.SimpleStatementLine(body=body.body, trailing_whitespace=body.trailing_whitespace)
        body = cst.IndentedBlock(body=[line])
    block = cst.ensure_type(body, cst.IndentedBlock)
    return statement.with_changes(body=block.with_changes(footer=[*block.footer, *lines]))
