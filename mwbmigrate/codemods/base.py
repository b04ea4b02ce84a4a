"""What every codemod shares: its self-description, metadata on the old class, and review markers."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import ClassVar, Sequence, cast

import libcst as cst
from libcst.codemod import Codemod, CodemodContext
from libcst.metadata import MetadataWrapper, ProviderT, ScopeProvider

from mwbmigrate.analysis.nodes import NodeSet
from mwbmigrate.analysis.old_api import OLD_CLASS, OLD_PARAMETER, ModuleLocation, refers_to_old_class
from mwbmigrate.analysis.positions import LocalPositions
from mwbmigrate.analysis.signatures import ProjectSignatures
from mwbmigrate.analysis.target_versions import DEFAULT_TARGET_VERSION, TARGET_VERSIONS
from mwbmigrate.analysis.version_gates import VersionGates, find_version_gates
from mwbmigrate.codemods.findings import (
    MARKER_PREFIX,
    MAX_REASON_CHARS,
    Finding,
    FindingStore,
    PassFindings,
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
    "Finding",
    "MigrationCodemod",
    "MigrationState",
    "NodeSet",
    "add_marker",
    "marker_text",
    "one_line_reason",
    "statement_markers",
    "tidy_block_start",
]

# The tokens of the old API itself: a module with neither has nothing any codemod migrates.
OLD_API: tuple[str, ...] = (OLD_CLASS, OLD_PARAMETER)  # the method's name contains the parameter's
# Those that rewrite old-API sites need the two reports: semantic-review marks the hazards of each
# rewrite, wild-shapes the version-gated code that must not be rewritten blindly (without them a
# rewrite changes behaviour with nothing said).
REPORTS: tuple[str, ...] = ("MWB010", "MWB011")
# Where migrated code imports the runtime helpers from, unless `--runtime vendor` names a private copy.
RUNTIME_MODULE = "mwbmigrate.runtime"


@dataclass
class MigrationState:
    """Per-file settings and findings, carried through `CodemodContext.scratch` across codemods."""

    location: ModuleLocation
    selected_reviews: frozenset[str] | None = None  # None: every review code
    ignored_reviews: frozenset[str] = frozenset()
    disabled_codemods: frozenset[str] = frozenset()  # codes and names not run in this pass
    renamed_signatures: set[tuple[str, str, str]] = field(default_factory=set)
    project_signatures: ProjectSignatures = field(default_factory=ProjectSignatures)  # pass 2 (keyword-callers)
    suggestions: dict[tuple[str, str], str] = field(default_factory=dict)  # (code, reason) -> suggestion
    # Classes of this module that define their own `get_model_worker_batch` (adapters, fakes).
    local_method_owners: frozenset[str] | None = None
    changed_by: list[str] = field(default_factory=list)
    runtime_module: str = RUNTIME_MODULE  # what core-runtime and req-pool-mirror import their helpers from
    target_version: str = DEFAULT_TARGET_VERSION  # the SGLang API shape to produce (analysis.target_versions)
    request_mirror: bool | None = None  # see TransformOptions.request_mirror
    collapse_compat: bool = False  # see TransformOptions.collapse_compat
    # False when the engine proved that no old-API name is in code (engine/transform.py CodeGate):
    # every version gate tests for or branches on one, so the module has none to find.
    old_api_in_code: bool = True
    findings: FindingStore = field(default_factory=FindingStore)  # rendered as markers once, by the engine
    _metadata: MetadataWrapper | None = field(default=None, repr=False)
    _gates: tuple[cst.Module, VersionGates] | None = field(default=None, repr=False)
    positions: LocalPositions = field(default_factory=LocalPositions, repr=False)

    def metadata_for(self, module: cst.Module) -> MetadataWrapper:
        """One wrapper per module object: codemods that leave the module as it was share its
        resolved scopes and positions instead of computing them again."""
        if self._metadata is None or self._metadata.module is not module:
            # Modules are never mutated in place, so the wrapper's defensive deep copy is waste.
            self._metadata = MetadataWrapper(module, unsafe_skip_copy=True)
        return self._metadata

    def version_gates(self, module: cst.Module) -> VersionGates:
        """The module's version gates and the regions they keep, once per module object."""
        if not self.old_api_in_code:
            return _NO_GATES
        if self._gates is None or self._gates[0] is not module:
            self._gates = (module, find_version_gates(self.metadata_for(module)))
        return self._gates[1]

    def wants_review(self, code: str) -> bool:
        if code in self.ignored_reviews:
            return False
        return self.selected_reviews is None or code in self.selected_reviews


STATE_KEY = "mwbmigrate"
_NO_GATES = VersionGates()


def state_of(context: CodemodContext) -> MigrationState:
    return cast(MigrationState, context.scratch[STATE_KEY])


def statement_markers(statement: cst.CSTNode) -> str:
    """The review markers already on a statement's (header) line, as one string ("" when none)."""
    comment = slot_comment(marker_slot(statement))
    index = comment.find(MARKER_PREFIX)
    return comment[index:] if index >= 0 else ""


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
    index = 0
    while index < len(lines) and lines[index].comment is None:
        index += 1
    return statement.with_changes(leading_lines=lines[index:]) if index else statement


def tidy_block_start(original_body: Sequence[cst.CSTNode], updated_body: Sequence[cst.CSTNode]) -> list[cst.CSTNode]:
    """When a block's first statement was deleted, the blank lines that followed it go too."""
    body = list(updated_body)
    if body and original_body and not body[0].deep_equals(original_body[0]):
        body[0] = without_leading_blank_lines(body[0])
    return body


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
    REVIEW_CODES: ClassVar[tuple[str, ...]] = ()  # every MWB1xx it may emit (review() refuses others)
    # CODEs of the codemods that must run whenever this one runs: its output is only correct, or
    # only reported, with them (earlier in the registry, or in the second pass).
    REQUIRES: ClassVar[tuple[str, ...]] = ()
    TARGET_VERSIONS: ClassVar[tuple[str, ...]] = TARGET_VERSIONS  # the --target-version values it runs for
    # Declared only by the codemods that read them: LibCST merges a class's dependencies with its
    # bases', so a base that declared ScopeProvider would resolve scopes for every codemod.
    METADATA_DEPENDENCIES: ClassVar[Sequence[ProviderT]] = ()

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
        while current is not None and not isinstance(current, (cst.SimpleStatementLine, cst.BaseCompoundStatement)):
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
        return bool(earlier) and (codes is None or any(f"{MARKER_PREFIX}{code} " in earlier for code in codes))

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
        return any(trigger in text for trigger in cls.TRIGGERS)

    def transform_module(self, tree: cst.Module) -> cst.Module:
        wrapper = self.state.metadata_for(tree)
        with self.resolve(wrapper):
            self.context = replace(self.context, wrapper=wrapper)
            return self.transform_module_impl(wrapper.module)

    def pass_findings(self) -> PassFindings:
        """The findings as this pass leaves them (the engine commits them with the module it keeps)."""
        return self._findings

    def transform_module_impl(self, tree: cst.Module) -> cst.Module:
        return tree.visit(self)
