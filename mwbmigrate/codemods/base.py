"""What every codemod shares: its self-description, metadata on the old class, and review markers."""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field, replace
from typing import Any, ClassVar, Collection, Optional, Sequence, cast

import libcst as cst
from libcst.codemod import Codemod, CodemodContext
from libcst.metadata import MetadataWrapper, ProviderT, ScopeProvider

from mwbmigrate.analysis.isolation import ProjectCallers
from mwbmigrate.analysis.names import MARKER_CONTINUATION, MARKER_PREFIX, OLD_PARAMETER, RUNTIME_MODULE, ModuleLocation
from mwbmigrate.analysis.nodes import NodeSet
from mwbmigrate.analysis.old_api import OLD_CLASS, refers_to_old_class
from mwbmigrate.analysis.positions import LocalPositions
from mwbmigrate.analysis.project_classes import ProjectWorkers
from mwbmigrate.analysis.scopes import link_deferred_annotations
from mwbmigrate.analysis.signatures import ProjectSignatures
from mwbmigrate.analysis.target_versions import DEFAULT_TARGET_VERSION, TARGET_VERSIONS, targets_between
from mwbmigrate.analysis.tree_facts import OwnWorkerBatchFields, WindowFacts
from mwbmigrate.analysis.version_gates import VersionGates, find_version_gates
from mwbmigrate.codemods.findings import (
    MAX_REASON_CHARS,
    Finding,
    FindingStore,
    PassFindings,
    marked_codes,
    marker_slot,
    marker_text,
    one_line_reason,
    slot_comment,
    with_marker,
)

__all__ = [
    "MARKER_PREFIX",
    "MAX_REASON_CHARS",
    "OLD_API",
    "REPORTS",
    "RUNTIME_MODULE",
    "Finding",
    "MigrationCodemod",
    "MigrationState",
    "NodeSet",
    "add_marker",
    "marked_codes",
    "marker_text",
    "one_line_reason",
    "statement_markers",
    "tidy_block_start",
]

# The tokens of the old API itself: a module with neither has nothing any codemod migrates.
OLD_API: tuple[str, ...] = (OLD_CLASS, OLD_PARAMETER)  # the method's name contains the parameter's
# A function installed over a method SGLang handed the old object takes it, whatever its parameter is
# called (codemods/_shared.py): the module that installs it acts on it.
INSTALLED_OVER_OLD_API: tuple[str, ...] = (
    ".init_new = ",
    ".forward_batch_generation = ",
    ".forward_batch_embedding = ",
)
# Those that rewrite old-API sites need the two reports: semantic-review marks the hazards of each
# rewrite, wild-shapes the version-gated code that must not be rewritten blindly (without them a
# rewrite changes behaviour with nothing said).
REPORTS: tuple[str, ...] = ("MWB010", "MWB011")


@dataclass
class MigrationState:
    """Per-file settings and findings, carried through `CodemodContext.scratch` across codemods."""

    location: ModuleLocation
    selected_reviews: frozenset[str] | None = None  # None: every review code
    ignored_reviews: frozenset[str] = frozenset()
    disabled_codemods: frozenset[str] = frozenset()  # codes and names not run in this pass
    renamed_signatures: set[tuple[str, str, str]] = field(default_factory=set)
    project_signatures: ProjectSignatures = field(default_factory=ProjectSignatures)  # pass 2 (keyword-callers)
    project_callers: ProjectCallers = field(default_factory=ProjectCallers)  # analysis.isolation, rule I2
    project_workers: ProjectWorkers = field(default_factory=ProjectWorkers)  # analysis.project_classes
    suggestions: dict[tuple[str, str], str] = field(default_factory=dict)  # (code, reason) -> suggestion
    # Classes of this module that define their own `get_model_worker_batch` (adapters, fakes).
    local_method_owners: frozenset[str] | None = None
    changed_by: list[str] = field(default_factory=list)
    runtime_module: str = RUNTIME_MODULE  # what core-runtime and req-pool-mirror import their helpers from
    target_version: str = DEFAULT_TARGET_VERSION  # the SGLang API shape to produce (analysis.target_versions)
    request_mirror: bool | None = None  # see TransformOptions.request_mirror
    collapse_compat: bool = False  # see TransformOptions.collapse_compat
    live_batch: bool = False  # see TransformOptions.live_batch
    clear_emptied_batches: bool = False  # see TransformOptions.clear_emptied_batches
    contract_breaks: tuple[tuple[int, str], ...] = ()  # see TransformOptions.contract_breaks
    project_defines: frozenset[str] = frozenset()  # see TransformOptions.project_defines
    window_facts: WindowFacts = field(default_factory=WindowFacts)  # see TransformOptions.window_facts
    own_worker_batch_fields: OwnWorkerBatchFields = field(default_factory=OwnWorkerBatchFields)  # likewise
    wrap_line_length: int | None = None  # see TransformOptions.wrap_line_length
    # False when the engine proved that no old-API name is in code (engine/transform.py CodeGate):
    # every version gate tests for or branches on one, so the module has none to find.
    old_api_in_code: bool = True
    findings: FindingStore = field(default_factory=FindingStore)  # rendered as markers once, by the engine
    _metadata: MetadataWrapper | None = field(default=None, repr=False)
    _gates: tuple[cst.Module, VersionGates] | None = field(default=None, repr=False)
    _completed: MetadataWrapper | None = field(default=None, repr=False)
    positions: LocalPositions = field(default_factory=LocalPositions, repr=False)

    def metadata_for(self, module: cst.Module) -> MetadataWrapper:
        """One wrapper per module object: codemods that leave the module as it was share its
        resolved scopes and positions instead of computing them again."""
        if self._metadata is None or self._metadata.module is not module:
            # Modules are never mutated in place, so the wrapper's defensive deep copy is waste.
            self._metadata = MetadataWrapper(module, unsafe_skip_copy=True)
        return self._metadata

    def complete_scopes(self, wrapper: MetadataWrapper) -> None:
        """The resolved scopes of `wrapper` with what LibCST leaves out linked in, once per wrapper
        (analysis/scopes.py)."""
        if self._completed is not wrapper:
            link_deferred_annotations(wrapper)
            self._completed = wrapper

    def version_gates(self, module: cst.Module) -> VersionGates:
        """The module's version gates and the regions they keep, once per module object."""
        if not self.old_api_in_code:
            return _NO_GATES
        if self._gates is None or self._gates[0] is not module:
            wrapper = self.metadata_for(module)
            self.complete_scopes(wrapper)
            self._gates = (module, find_version_gates(wrapper))
        return self._gates[1]

    def wants_review(self, code: str) -> bool:
        if code in self.ignored_reviews:
            return False
        return self.selected_reviews is None or code in self.selected_reviews


def _reads_scopes(providers: Collection[ProviderT]) -> bool:
    """Whether resolving `providers` resolves LibCST's scopes (itself, or a provider built on them)."""
    return any(
        provider is ScopeProvider or _reads_scopes(provider.get_inherited_dependencies()) for provider in providers
    )


STATE_KEY = "mwbmigrate"
_NO_GATES = VersionGates()


def state_of(context: CodemodContext) -> MigrationState:
    return cast(MigrationState, context.scratch[STATE_KEY])


def statement_markers(statement: cst.CSTNode) -> str:
    """The review markers already on a statement, as one string ("" when none): at the end of its
    (header) line, or on the comment lines right above it (a marker too long for the line,
    engine/marker_layout.py, its wrapped lines joined again)."""
    comment = slot_comment(marker_slot(statement))
    index = comment.find(MARKER_PREFIX)
    trailing = comment[index:] if index >= 0 else ""
    return "  ".join(text for text in (_marker_above(statement), trailing) if text)


def _marker_above(statement: cst.CSTNode) -> str:
    # A decorated definition's marker stands between its decorators and its `def` (the line that
    # starts it, where engine/marker_layout.py lifts a long marker to).
    decorated = bool(getattr(statement, "decorators", ()))
    lines = getattr(statement, "lines_after_decorators" if decorated else "leading_lines", ())
    block: list[str] = []
    for line in reversed(lines):
        text = line.comment.value if line.comment is not None else ""
        if text.startswith(MARKER_PREFIX):
            block.append(text)
            break
        if not text.startswith(MARKER_CONTINUATION):
            return ""
        block.append(text[len(MARKER_CONTINUATION) :].strip())
    return " ".join(reversed(block)) if block and block[-1].startswith(MARKER_PREFIX) else ""


def add_marker(statement: cst.CSTNode, text: str) -> cst.CSTNode:
    """Put a marker comment at the end of the statement's (header) line."""
    if isinstance(statement, cst.SimpleStatementLine):
        return statement.with_changes(trailing_whitespace=with_marker(statement.trailing_whitespace, text))
    body = getattr(statement, "body", None)
    if isinstance(body, cst.IndentedBlock):
        return statement.with_changes(body=body.with_changes(header=with_marker(body.header, text)))
    if isinstance(body, cst.SimpleStatementSuite):
        return statement.with_changes(
            body=body.with_changes(trailing_whitespace=with_marker(body.trailing_whitespace, text))
        )
    return statement


def without_leading_blank_lines(statement: cst.CSTNode) -> cst.CSTNode:
    lines = getattr(statement, "leading_lines", ())
    index = _blank_run(lines)
    return statement.with_changes(leading_lines=lines[index:]) if index else statement


def tidy_block_start(original_body: Sequence[cst.CSTNode], updated_body: Sequence[cst.CSTNode]) -> list[cst.CSTNode]:
    """When a block's first statement was deleted, the blank lines that followed it go too."""
    body = list(updated_body)
    if body and original_body and not body[0].deep_equals(original_body[0]):
        body[0] = without_leading_blank_lines(body[0])
    return body


# -- deleting a statement keeps what the user wrote around it --------------------------------------
#
# A codemod deletes a statement by returning `deleted(statement)` from its leave_ (never
# `RemoveFromParent`, which takes the statement's leading comments and its line's comment with it),
# and passes the block it is in through `settle_block` / `settle_module` in its leave_IndentedBlock /
# leave_Module (`settled` for a body it rebuilds itself). There each deleted statement's lines go to
# the statement after it, where they stood; after a block's last statement, into the block's footer,
# still at the block's indentation; in a block left with no statement, above the `pass` that fills it.
# The code goes, its comments stay in place: a compound statement deleted whole keeps only the lines
# above it (what is inside goes with the branch or class it documents).


@dataclass(frozen=True)
class _Deleted(cst.SimpleStatementLine):
    """Where a deleted statement stood, holding its lines until its block is settled. Should one
    escape, it renders as a `pass` under the comments, and a later transformer rebuilds it as one."""


def deleted(statement: cst.BaseStatement) -> cst.SimpleStatementLine:
    """The stand-in a leave_ returns for `statement` to delete it, keeping its comments (`settled`)."""
    return _Deleted(body=[cst.Pass()], leading_lines=kept_lines(statement))


def is_deleted(statement: cst.CSTNode) -> bool:
    return isinstance(statement, _Deleted)


def kept_lines(statement: cst.CSTNode) -> list[cst.EmptyLine]:
    """What deleting `statement` must not lose: its leading lines and, for a simple statement, the
    comment ending its line. A compound statement deleted whole takes what is inside it along."""
    lines = list(getattr(statement, "leading_lines", ()))
    if isinstance(statement, cst.SimpleStatementLine):
        inside = _Comments()
        for small in statement.body:
            small.visit(inside)  # between the tokens of a call or an expression that spans lines
        lines += [cst.EmptyLine(comment=cst.Comment(text)) for text in inside.found]
        lines += comment_line(statement.trailing_whitespace)
    return lines


# A tool's directive about the line it ends (`# type: X`, a noqa, `# pylint: disable=...`): on a
# line of its own it would mean something else (mypy reads `# type: ignore` above a module's first
# statement as "ignore the module", pylint a disable as "for the rest of the scope").
# Spelled as each tool reads it: mypy's `type:` is lower case (`# Type: the snapshot` is prose), while
# flake8 and ruff take an upper-case NOQA, and coverage an upper-case PRAGMA.
_LINE_DIRECTIVE = re.compile(r"#\s*(type:|(?i:noqa)\b|(?i:pragma)\b|pylint:|mypy:|pyright:|fmt:|isort:|ruff:|nosec\b)")
_BEFORE_NEXT_COMMENT = re.compile(r"(\s+)(?=#)")


def _without_directives(text: str) -> str:
    """A line's comment without an earlier run's markers and the tools' directives in it; the rest,
    spacing included, as the user wrote it."""
    marker = text.find(MARKER_PREFIX)
    text = text[:marker] if marker >= 0 else text
    parts = _BEFORE_NEXT_COMMENT.split(text)  # comment, spacing, comment, ...
    kept = ""
    for index in range(0, len(parts), 2):
        part = parts[index].strip()
        if part and not _LINE_DIRECTIVE.match(part):
            kept += (parts[index - 1] if kept else "") + part
    return kept


def comment_line(whitespace: cst.TrailingWhitespace) -> list[cst.EmptyLine]:
    """The comment ending a line whose code goes, as a line of its own. What was about that code
    alone goes with it: an earlier run's markers, and the tools' directives on it."""
    text = _without_directives(whitespace.comment.value if whitespace.comment is not None else "")
    return [cst.EmptyLine(comment=cst.Comment(text))] if text else []


# -- a statement rewritten in place keeps the comments inside it -------------------------------------
#
# A codemod that rebuilds an expression (a `Union` collapsed, an `isinstance` tuple narrowed, a call
# dropped for the name it was bound to) takes the comments between its tokens with it. Whatever
# comment a statement held and its rewrite no longer does goes above it, as a line of its own: for a
# compound statement, what its header held (the suites are theirs to keep).

_SUITES = (cst.BaseSuite, cst.If, cst.Else, cst.ExceptHandler, cst.ExceptStarHandler, cst.Finally, cst.MatchCase)


class _Comments(cst.CSTVisitor):
    def __init__(self) -> None:
        self.found: list[str] = []

    def visit_Comment(self, node: cst.Comment) -> None:
        if node.value.startswith((MARKER_PREFIX, MARKER_CONTINUATION)):
            return
        text = _without_directives(node.value)
        if text:
            self.found.append(text)


def _statement_comments(statement: cst.CSTNode) -> list[str]:
    """The user's comments in a simple statement, or in a compound statement's header."""
    collector = _Comments()
    if isinstance(statement, cst.SimpleStatementLine):
        statement.visit(collector)
        return collector.found
    for child in statement.children:
        if not isinstance(child, _SUITES):
            child.visit(collector)
    body = getattr(statement, "body", None)
    if isinstance(body, cst.IndentedBlock):
        body.header.visit(collector)
    elif isinstance(body, cst.SimpleStatementSuite):
        body.trailing_whitespace.visit(collector)
    return collector.found


def with_comments_kept(original: cst.CSTNode, updated: cst.CSTNode) -> cst.CSTNode:
    """`updated`, a rewrite of `original`, with the comments it lost above it."""
    if not isinstance(updated, (cst.SimpleStatementLine, cst.BaseCompoundStatement)) or type(original) is not type(
        updated
    ):
        return updated
    before = _statement_comments(original)
    if not before:
        return updated  # (most statements: nothing to keep, and the rewrite is not walked)
    remaining = Counter(_statement_comments(updated))
    lost = []
    for text in before:
        if remaining[text] > 0:
            remaining[text] -= 1
        else:
            lost.append(cst.EmptyLine(comment=cst.Comment(text)))
    if not lost:
        return updated
    return updated.with_changes(leading_lines=[*updated.leading_lines, *lost])


def test_comments(statement: cst.If) -> list[cst.EmptyLine]:
    """The comments between the tokens of an `if`'s test (a parenthesised condition over lines)."""
    inside = _Comments()
    for part in (statement.whitespace_before_test, statement.test, statement.whitespace_after_test):
        part.visit(inside)
    return [cst.EmptyLine(comment=cst.Comment(text)) for text in inside.found]


def comments_above_later_branches(branch: cst.If) -> list[cst.EmptyLine]:
    """The comment lines above each `elif`/`else` after `branch`'s own: between the branches, not
    inside the code of those that go."""
    lines: list[cst.EmptyLine] = []
    later: cst.If | cst.Else | None = branch.orelse
    while later is not None:
        lines += [line for line in later.leading_lines if line.comment is not None]
        later = later.orelse if isinstance(later, cst.If) else None
    return lines


def kept_branch(
    leading: Sequence[cst.EmptyLine], suite: cst.BaseSuite, after: Sequence[cst.EmptyLine] = ()
) -> list[cst.BaseStatement]:
    """The statements of the one branch kept in place of its compound statement, and every comment
    around them: `leading` (the statement's lines, then those above the branch's own `else`/`elif`)
    and the branch header's comment open them; the block's footer, then `after` (the comments
    above the branches that go after it), follow them, as a stand-in that the enclosing block
    settles."""
    if isinstance(suite, cst.SimpleStatementSuite):
        statements: list[cst.BaseStatement] = [
            cst.SimpleStatementLine(body=suite.body, trailing_whitespace=suite.trailing_whitespace)
        ]
        header: list[cst.EmptyLine] = []
    else:
        block = cst.ensure_type(suite, cst.IndentedBlock)
        statements = list(block.body)
        header = comment_line(block.header)
        if any(line.comment is not None for line in block.footer):
            statements.append(_Deleted(body=[cst.Pass()], leading_lines=block.footer))
    if after:
        statements.append(_Deleted(body=[cst.Pass()], leading_lines=after))
    first = statements[0]
    statements[0] = first.with_changes(leading_lines=[*leading, *header, *getattr(first, "leading_lines", ())])
    return statements


def _blank_run(lines: Sequence[cst.EmptyLine]) -> int:
    """How many blank lines open `lines`."""
    index = 0
    while index < len(lines) and lines[index].comment is None:
        index += 1
    return index


def _joined(above: Sequence[cst.EmptyLine], below: Sequence[cst.EmptyLine]) -> list[cst.EmptyLine]:
    """A deleted statement's lines, then those of the statement after it: the two blank runs that
    now meet (around the line that went) become one, as long as the longer was."""
    tail = len(above)
    while tail and above[tail - 1].comment is None:
        tail -= 1
    head = _blank_run(below)
    blanks = max(list(above[tail:]), list(below[:head]), key=len)
    return [*above[:tail], *blanks, *below[head:]]


def settled(
    body: Sequence[cst.BaseStatement], footer: Sequence[cst.EmptyLine] = (), block_start: bool = True, fill: bool = True
) -> tuple[list[cst.BaseStatement], list[cst.EmptyLine]]:
    """`body` and `footer` without the stand-ins of deleted statements, their lines handed on.

    `block_start`: the blank lines a statement deleted first in the block leaves (its own, and
    those that followed it) go too, as `tidy_block_start` drops them; comments never do. `fill`:
    a body left with no statement holds `pass` (a block's must; a module's may be empty)."""
    result: list[cst.BaseStatement] = []
    pending: list[cst.EmptyLine] = []
    after_deleted = False
    for statement in body:
        if isinstance(statement, _Deleted):
            pending = _joined(pending, statement.leading_lines)
            after_deleted = True
            continue
        if after_deleted:
            own = list(getattr(statement, "leading_lines", ()))
            if not result and block_start:
                lines = [*pending[_blank_run(pending) :], *own[_blank_run(own) :]]
            else:
                lines = _joined(pending, own)
            statement = statement.with_changes(leading_lines=lines)
            pending, after_deleted = [], False
        result.append(statement)
    comments = [i for i, line in enumerate(pending) if line.comment is not None]
    # After the last statement, only comments are worth keeping: trailing blank lines would pile up.
    pending = pending[: comments[-1] + 1] if comments else []
    if not result and fill:
        return [_PASS.with_changes(leading_lines=pending[_blank_run(pending) :])], list(footer)
    if not result and block_start:
        pending = pending[_blank_run(pending) :]
    return result, _joined(pending, footer) if pending else list(footer)


_PASS = cst.SimpleStatementLine(body=[cst.Pass()])


def settle_block(original: cst.IndentedBlock, updated: cst.IndentedBlock) -> cst.IndentedBlock:
    """`updated` with its deleted statements' lines handed on; a block left empty holds `pass`."""
    if updated.body and not any(isinstance(s, _Deleted) for s in updated.body):
        if len(updated.body) != len(original.body):  # a branch deleted whole by `RemoveFromParent`
            return updated.with_changes(body=tidy_block_start(original.body, updated.body))
        return updated
    body, footer = settled(updated.body, updated.footer)
    return updated.with_changes(body=body, footer=footer)


def settle_module(updated: cst.Module) -> cst.Module:
    """`updated` with its deleted statements' lines handed on."""
    if not any(isinstance(s, _Deleted) for s in updated.body):
        return updated
    # Below a header comment, a blank line before the first statement is the module's own layout.
    body, footer = settled(updated.body, updated.footer, block_start=not updated.header, fill=False)
    return updated.with_changes(body=body, footer=footer)


class MigrationCodemod(Codemod, cst.CSTTransformer):
    """Base of every codemod: its declared contract, and `review()` for refusals.

    `review()` records a `Finding` for the innermost statement around a node; it is anchored when
    that statement is left (to the statement's marker slot, `codemods.findings`), follows the
    statement through every later codemod, and the engine renders it as a marker comment once, at
    the end. A codemod that only reports therefore leaves the module as it was, and the next one
    reuses its resolved scopes.
    """

    CODE: ClassVar[str]  # "MWB005"
    NAME: ClassVar[str]  # "worker-batch-calls"
    SUMMARY: ClassVar[str]  # one line
    # Identifiers or tokens without which this codemod cannot change a module: `applies_to`'s
    # default, and (their union over the registry) the engine's byte prefilter.
    TRIGGERS: ClassVar[tuple[str, ...]]
    # Other words `applies_to` or a visit reacts to: with TRIGGERS, a function body that holds none
    # of them is left out of what this codemod sees (engine/elision.py).
    BODY_WORDS: ClassVar[tuple[str, ...]] = ()
    # Words of which `applies_to` needs one besides a trigger (or the project's facts): a module that
    # holds none of them is never parsed for this codemod (the byte prefilter, mwbmigrate/rules.py).
    REQUIRED_WORDS: ClassVar[tuple[str, ...]] = ()
    REVIEW_CODES: ClassVar[tuple[str, ...]] = ()  # every MWB1xx it may emit (review() refuses others)
    # CODEs of the codemods that must run whenever this one runs: its output is only correct, or
    # only reported, with them (earlier in the registry, or in the second pass).
    REQUIRES: ClassVar[tuple[str, ...]] = ()
    # The releases it models (django-upgrade's `min_version`): it runs for every target from SINCE
    # up to, not including, UNTIL (None: through the newest), and BOUNDARIES are the releases in
    # between where its output changes. Each is a release of analysis/release_table.py, which
    # check_registry() checks. TARGET_VERSIONS, the targets it runs for, follows from them.
    SINCE: ClassVar[str] = DEFAULT_TARGET_VERSION
    UNTIL: ClassVar[Optional[str]] = None
    BOUNDARIES: ClassVar[tuple[str, ...]] = ()
    TARGET_VERSIONS: ClassVar[tuple[str, ...]] = TARGET_VERSIONS
    # Declared only by the codemods that read them: LibCST merges a class's dependencies with its
    # bases', so a base that declared ScopeProvider would resolve scopes for every codemod.
    METADATA_DEPENDENCIES: ClassVar[Sequence[ProviderT]] = ()

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        # One declared by hand is kept, for check_registry() to compare with SINCE and UNTIL.
        if "TARGET_VERSIONS" not in cls.__dict__:
            cls.TARGET_VERSIONS = targets_between(cls.SINCE, cls.UNTIL)

    def __init__(self, context: CodemodContext) -> None:
        # A plain CSTTransformer: the matcher-decorator machinery of ContextAwareTransformer costs
        # a check on every node, and no codemod here uses matcher decorators.
        Codemod.__init__(self, context)
        cst.CSTTransformer.__init__(self)
        self.state = state_of(context)
        self._pending: dict[int, tuple[cst.CSTNode, list[Finding]]] = {}  # id -> (statement, its new findings)
        self._findings: PassFindings = self.state.findings.begin()
        # Ancestors of the node being visited; cheaper than ParentNodeProvider on large modules.
        self._ancestors: list[cst.CSTNode] = []
        self._skipped: list[cst.CSTNode] = []  # gated regions being passed over
        self._gated_depth = 0  # gated regions around the node (codemods that visit them)

    # -- facts ---------------------------------------------------------------------------------
    def names_old_class(self, node: cst.CSTNode) -> bool:
        # Asked of the scope lazily: QualifiedNameProvider would resolve every name in the module.
        scope = self.get_metadata(ScopeProvider, node, None)
        if scope is None:
            return False
        return refers_to_old_class(scope, node, self.state.location, self.module)

    def parent(self, node: cst.CSTNode) -> cst.CSTNode | None:
        """The parent of a node on the current visiting path (the node itself or one of its ancestors)."""
        for index in range(len(self._ancestors) - 1, 0, -1):
            if self._ancestors[index] is node:
                return self._ancestors[index - 1]
        return None

    def enclosing_class(self) -> str | None:
        """Name of the innermost class around the node being visited."""
        for node in reversed(self._ancestors):
            if isinstance(node, cst.ClassDef):
                return node.name.value
        return None

    def qualified_scope(self) -> str:
        """`Class.method` (dotted classes and functions) around the node being visited."""
        return ".".join(n.name.value for n in self._ancestors if isinstance(n, (cst.ClassDef, cst.FunctionDef)))

    def line_of(self, node: cst.CSTNode) -> int:
        """Line of a node of the function being visited, counted within its outermost enclosing
        function: consistent for comparisons inside that function, and far cheaper than
        PositionProvider, which renders the whole module again after every change."""
        root = next((n for n in self._ancestors if isinstance(n, cst.FunctionDef)), None)
        if root is None:
            wrapper = self.context.wrapper
            assert wrapper is not None, "line_of runs only inside transform_module"
            return self.state.positions.line(node, wrapper.module)
        return self.state.positions.line(node, root)

    def enclosing_statement(self, node: cst.CSTNode) -> cst.CSTNode:
        current: cst.CSTNode | None = node
        # A `case` clause carries its own marker, on its line: the `match` line has no marker slot.
        statements = (cst.SimpleStatementLine, cst.BaseCompoundStatement, cst.MatchCase)
        while current is not None and not isinstance(current, statements):
            current = self.parent(current)
        return current if current is not None else node

    # Version-gated code keeps working on both APIs: a codemod leaves a gate's region as it is
    # (wild-shapes reports it from the module's gates), except keyword-callers, which must follow
    # the project's own renamed functions there too.
    SKIPS_GATED_REGIONS: ClassVar[bool] = True

    def in_gated_region(self) -> bool:
        return self._gated_depth > 0

    def on_visit(self, node: cst.CSTNode) -> bool:
        self._ancestors.append(node)
        if isinstance(node, (cst.BaseCompoundStatement, cst.SimpleStatementLine)) and self._gates().is_region(node):
            if self.SKIPS_GATED_REGIONS:
                self._skipped.append(node)
                return False
            self._gated_depth += 1
        return super().on_visit(node)

    def _gates(self) -> VersionGates:
        wrapper = self.context.wrapper
        return self.state.version_gates(wrapper.module) if wrapper is not None else _NO_GATES

    # -- findings ------------------------------------------------------------------------------
    def review(self, node: cst.CSTNode, code: str, reason: str, suggestion: str = "") -> None:
        if code not in self.REVIEW_CODES:
            raise ValueError(f"{self.NAME} reported {code}, which it does not declare in REVIEW_CODES")
        if not self.state.wants_review(code):
            return
        finding = Finding(code, one_line_reason(reason), suggestion)
        self.state.suggestions[(code, finding.reason)] = suggestion
        statement = self.enclosing_statement(node)
        self._pending.setdefault(id(statement), (statement, []))[1].append(finding)

    def review_returned(self, node: cst.CSTNode, code: str, reason: str) -> cst.CSTNode:
        """A finding on a statement this codemod builds and returns (no original to leave)."""
        if code not in self.REVIEW_CODES:
            raise ValueError(f"{self.NAME} reported {code}, which it does not declare in REVIEW_CODES")
        if self.state.wants_review(code):
            finding = Finding(code, one_line_reason(reason))
            self.state.suggestions[(code, finding.reason)] = ""
            self._findings.attach(None, node, [finding])
        return node

    def carry_findings(self, source: cst.CSTNode, target: cst.CSTNode) -> None:
        """`source`'s findings go with `target`, which took over its line's comment (a folded write)."""
        self._findings.moved(marker_slot(source), marker_slot(target))

    def reported_on(self, statement: cst.CSTNode, codes: Sequence[str] | None = None) -> bool:
        """Whether `statement` carries a finding (with one of `codes`): this run's, or, on a line an
        earlier run marked, its marker (read as a suppression, never written back)."""
        found = [*self._findings.slots.at(marker_slot(statement))]
        pending = self._pending.get(id(statement))
        if pending is not None and pending[0] is statement:
            found.extend(pending[1])
        if any(codes is None or f.code in codes for f in found):
            return True
        earlier = statement_markers(statement)
        return bool(earlier) and (codes is None or bool(marked_codes(earlier) & set(codes)))

    def reasons_on(self, statement: cst.CSTNode) -> str:
        """The marker texts of `statement`'s findings and an earlier run's markers, as one string."""
        found = [*self._findings.slots.at(marker_slot(statement))]
        pending = self._pending.get(id(statement))
        if pending is not None and pending[0] is statement:
            found.extend(pending[1])
        return "  ".join([statement_markers(statement), *(f.text for f in found)])

    def on_leave(self, original_node, updated_node):  # type: ignore[no-untyped-def]
        if self._skipped and self._skipped[-1] is original_node:
            self._skipped.pop()  # its visit_ never ran, so neither does its leave_
            updated = updated_node
        else:
            if (
                not self.SKIPS_GATED_REGIONS
                and isinstance(original_node, (cst.BaseCompoundStatement, cst.SimpleStatementLine))
                and self._gates().is_region(original_node)
            ):
                self._gated_depth -= 1
            updated = super().on_leave(original_node, updated_node)
            if (
                updated is not original_node
                and isinstance(original_node, (cst.SimpleStatementLine, cst.BaseCompoundStatement))
                and isinstance(updated, cst.CSTNode)
            ):
                updated = with_comments_kept(original_node, updated)
        self._ancestors.pop()
        if isinstance(original_node, cst.TrailingWhitespace):
            self._findings.moved(original_node, updated)  # earlier codemods' findings follow the line
        pending = self._pending.pop(id(original_node), None)
        if pending is not None and pending[0] is original_node:
            # Removed, or replaced by several statements: its new findings go, as comments added here would.
            self._findings.attach(original_node, updated if isinstance(updated, cst.CSTNode) else None, pending[1])
        return updated

    @classmethod
    def applies_to(cls, text: str, state: MigrationState) -> bool:
        """A cheap textual test: False means this codemod cannot change the module (skipped)."""
        if cls.REQUIRED_WORDS and not any(word in text for word in cls.REQUIRED_WORDS):
            return False
        return any(trigger in text for trigger in cls.TRIGGERS) or cls.triggered_by_project(state)

    @classmethod
    def triggered_by_project(cls, state: MigrationState) -> bool:
        """Whether what the project's other modules show (a class of this module that is a worker
        through them) makes the module one this codemod acts on, whatever of its TRIGGERS it names."""
        return False

    def transform_module(self, tree: cst.Module) -> cst.Module:
        wrapper = self.state.metadata_for(tree)
        if _reads_scopes(self.get_inherited_dependencies()):
            # Before the providers that read the scopes (qualified names) are resolved from them.
            self.state.complete_scopes(wrapper)
        with self.resolve(wrapper):
            self.context = replace(self.context, wrapper=wrapper)
            return self.transform_module_impl(wrapper.module)

    def pass_findings(self) -> PassFindings:
        """The findings as this pass leaves them (the engine commits them with the module it keeps)."""
        return self._findings

    def transform_module_impl(self, tree: cst.Module) -> cst.Module:
        return tree.visit(self)
