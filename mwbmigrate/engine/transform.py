"""The pure core: `transform_source(text, ...)` and `transform_file(path, ...)` never raise and do no writes."""

from __future__ import annotations

import io
import os
import tokenize
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Mapping

import libcst as cst
from libcst.codemod import CodemodContext
from libcst.codemod.visitors import AddImportsVisitor, RemoveImportsVisitor
from libcst.metadata import CodeRange, MetadataWrapper

from mwbmigrate.analysis.isolation import ProjectCallers, scan_callers
from mwbmigrate.analysis.names import ModuleLocation
from mwbmigrate.analysis.positions import LocalPositions
from mwbmigrate.analysis.scopes import link_deferred_annotations
from mwbmigrate.analysis.target_versions import register_release
from mwbmigrate.analysis.tree_facts import WindowFacts, scan_window_facts
from mwbmigrate.codemods import CODEMODS
from mwbmigrate.codemods.base import (
    STATE_KEY,
    MigrationCodemod,
    MigrationState,
    deleted,
    settle_block,
    settle_module,
)
from mwbmigrate.codemods.findings import Finding, FindingStore, PassFindings, RenderFindings, placed_findings
from mwbmigrate.codemods.imports import inner_comments, with_deleted_comments, without_aliases
from mwbmigrate.codemods.wild_shapes import ReportWildShapes, collapse_version_gates, imports_foreign_old_class
from mwbmigrate.engine.code_view import CR_ONLY, SCHEDULE_BATCH_MODULE_RULE, code_view, triggered
from mwbmigrate.engine.elision import elide, restored_line
from mwbmigrate.engine.marker_layout import lift_long_markers, marker_placements, shifted_line
from mwbmigrate.engine.options import NO_ELISION_ENV as NO_ELISION_ENV, TransformOptions as TransformOptions
from mwbmigrate.engine.source import (
    DecodedSource,
    UnreadableFile,
    UnreadableSource,
    decode_source,
    read_regular_file,
    source_line_texts,
)
from mwbmigrate.result import FileResult, FileStatus, ReviewItem
from mwbmigrate.review import NOTE, code_kind


class NotRoundTrippable(Exception):
    """Parsing and rendering the unchanged module would already alter bytes; never write such a file."""


@dataclass(frozen=True)
class TextOutcome:
    text: str
    review_items: tuple[ReviewItem, ...]
    applied: tuple[str, ...]
    renamed_signatures: tuple[tuple[str, str, str], ...]


def _review_items(
    positions: Mapping[cst.CSTNode, CodeRange], text: str, display_path: str, findings: FindingStore
) -> tuple[ReviewItem, ...]:
    """One item per marker the findings put (or found already) on a line of the final module.
    Markers only ever end a line, so lines and indentation are the same with or without them."""
    if not findings:
        return ()
    lines = source_line_texts(text)
    items = []
    for number, _, finding in placed_findings(findings, positions):
        line = lines[number - 1] if number <= len(lines) else ""
        column = len(line) - len(line.lstrip()) + 1
        items.append(
            ReviewItem(
                finding.code, display_path, number, column, finding.reason, finding.suggestion, code_kind(finding.code)
            )
        )
    return tuple(items)


def _pruned_imports(context: CodemodContext, module: cst.Module, findings: FindingStore) -> cst.Module:
    """RemoveImportsVisitor's output, with the findings following the statements it rebuilds (on
    this very module: the visitor's own `transform_module` would work on a deep copy of it), and
    every comment of the imports it prunes kept (codemods/imports.py `without_aliases`)."""
    visitor = RemoveImportsVisitor(context)
    moves = findings.begin()
    original_on_leave = visitor.on_leave
    deleted_comments: list[cst.EmptyLine] = []  # inside the imports removed from the current line

    def on_leave(original_node: cst.CSTNode, updated_node: cst.CSTNode) -> object:
        updated = original_on_leave(original_node, updated_node)
        if isinstance(original_node, cst.TrailingWhitespace):
            moves.moved(original_node, updated)
        # The visitor drops the comments of the names it removes, and those of the name left last:
        # the names it kept are taken out of the original list again, every comment kept.
        elif isinstance(updated_node, cst.ImportFrom) and isinstance(updated, cst.ImportFrom):
            removed = _pruned_aliases(updated_node, updated) if updated is not updated_node else []
            return without_aliases(updated_node, removed) if removed else updated
        elif isinstance(updated_node, cst.ImportFrom) and isinstance(updated, cst.RemovalSentinel):
            deleted_comments.extend(inner_comments(updated_node))
        # An import line left with no name goes, its comments stay (codemods/base.py `deleted`).
        elif isinstance(original_node, cst.SimpleStatementLine) and isinstance(updated, cst.SimpleStatementLine):
            updated = with_deleted_comments(updated, deleted_comments)
            deleted_comments.clear()
            return deleted(updated) if original_node.body and not updated.body else updated
        elif isinstance(original_node, cst.IndentedBlock) and isinstance(updated, cst.IndentedBlock):
            return settle_block(original_node, updated)
        elif isinstance(updated, cst.Module):
            return settle_module(updated)
        return updated

    visitor.on_leave = on_leave  # type: ignore[method-assign,assignment]
    wrapper = MetadataWrapper(module, unsafe_skip_copy=True)
    visitor.context = replace(context, wrapper=wrapper)
    link_deferred_annotations(wrapper)
    with visitor.resolve(wrapper):
        pruned = visitor.transform_module_impl(wrapper.module)
    findings.commit(moves, adopted=True)
    return pruned


def _pruned_aliases(original: cst.ImportFrom, pruned: cst.ImportFrom) -> list[int]:
    """The indexes of the names of `original` that `pruned` (RemoveImportsVisitor's rebuild of it,
    which keeps the other names in order, some with a new comma) no longer lists."""
    kept = iter(_listed_names(pruned))
    next_kept = next(kept, None)
    removed = []
    for index, alias in enumerate(_listed_names(original)):
        if next_kept is not None and _same_import(alias, next_kept):
            next_kept = next(kept, None)
        else:
            removed.append(index)
    return removed


def _listed_names(node: cst.ImportFrom) -> list[cst.ImportAlias]:
    return [] if isinstance(node.names, cst.ImportStar) else list(node.names)


def _same_import(alias: cst.ImportAlias, other: cst.ImportAlias) -> bool:
    return (alias.evaluated_name, alias.evaluated_alias) == (other.evaluated_name, other.evaluated_alias)


def migration_state(path: str, options: TransformOptions) -> MigrationState:
    """The per-file state the codemods read (and their `applies_to`), from the run's options."""
    if options.derived_release is not None:
        register_release(options.derived_release)  # in this process too (a worker of the pool)
    return MigrationState(
        location=ModuleLocation(Path(path).as_posix(), options.extra_modules),
        selected_reviews=options.selected_reviews,
        ignored_reviews=options.ignored_reviews,
        disabled_codemods=options.disabled,
        project_signatures=options.project_signatures,
        project_callers=options.project_callers,
        project_workers=options.project_workers,
        target_version=options.target_version,
        runtime_module=options.runtime_module,
        request_mirror=options.request_mirror,
        collapse_compat=options.collapse_compat,
        live_batch=options.live_batch,
        clear_emptied_batches=options.clear_emptied_batches,
        contract_breaks=options.contract_breaks,
        project_defines=options.project_defines,
        window_facts=options.window_facts or WindowFacts(),
        own_worker_batch_fields=options.own_worker_batch_fields,
        wrap_line_length=options.wrap_line_length,
    )


class _ProseOnly(Exception):
    """A codemod the gate left out became triggered in code by an earlier codemod's edit."""


@dataclass(frozen=True)
class CodeGate:
    """Which first-pass codemods may run on a module whose old-API words are all in prose.

    A codemod acts only where one of its TRIGGERS is in code (the registry's contract; the prefilter
    leaves whole files unparsed by the same rule, engine/prefilter.py). So in a module whose old API
    is only in comments, docstrings or markers (a migrated module, a `--check`), the codemods whose
    triggers are only in prose are left out, and only what the others need is parsed; in SGLang's
    `schedule_batch.py`, class-removal runs too, whatever it names. `admitted` is None when every
    codemod runs: the old API is in code, or `tokenize` cannot read it. The second pass is never
    gated: keyword-callers reacts to the project's renamed parameters, not to its TRIGGERS."""

    admitted: frozenset[type[MigrationCodemod]] | None

    @classmethod
    def of(cls, text: str, state: MigrationState, codemods: tuple[type[MigrationCodemod], ...]) -> CodeGate:
        view = code_view(text)
        if view is None:
            return cls(None)
        located = state.location.is_schedule_batch_module
        return cls(
            frozenset(
                c
                for c in codemods
                if c not in CODEMODS or triggered(c, view, state) or (located and c.CODE == SCHEDULE_BATCH_MODULE_RULE)
            )
        )

    def admits(self, codemod: type[MigrationCodemod]) -> bool:
        return self.admitted is None or codemod in self.admitted

    def check_still_prose(self, codemod: type[MigrationCodemod], view: str | None) -> None:
        """Raise _ProseOnly when an edit put an old-API name (`view` is None), or a trigger of a
        left-out codemod, into code: the module is then transformed again with every codemod."""
        if view is None or (not self.admits(codemod) and triggered(codemod, view)):
            raise _ProseOnly(codemod.CODE)


OPEN_GATE = CodeGate(None)


def body_words(
    codemods: tuple[type[MigrationCodemod], ...],
    options: TransformOptions,
    text: str,
    state: MigrationState,
    gate: CodeGate = OPEN_GATE,
) -> tuple[str, ...]:
    """The words that make a function body matter to a pass: the TRIGGERS and BODY_WORDS of the
    codemods that apply to the module, and the old parameter names of the project's renamed
    signatures (keyword-callers' own test)."""
    words = [
        w
        for c in codemods
        if options.runs(c) and gate.admits(c) and c.applies_to(text, state)
        for w in (*c.TRIGGERS, *c.BODY_WORDS)
    ]
    words += sorted(options.project_signatures.old_names())
    return tuple(dict.fromkeys(words))


def transform_source(
    text: str,
    display_path: str,
    options: TransformOptions,
    codemods: tuple[type[MigrationCodemod], ...] = CODEMODS,
    location_path: str | None = None,
    prose_gate: bool = False,
) -> TextOutcome:
    """Run `codemods` in order over one module's text. Raises libcst.ParserSyntaxError on bad input.

    `prose_gate`: leave out the codemods whose TRIGGERS the module mentions only in prose (CodeGate),
    as the prefilter leaves out whole files; the file path (`transform_file`) does, so that each file
    gets the codemods the prefilter judged it by.

    `location_path` (default: `display_path`) is where the module sits, which decides whether
    relative imports and a local class definition are SGLang's own. The function bodies none of
    the codemods can act on are left out of what LibCST parses and put back after (engine/elision.py).
    """
    if options.window_facts is None:
        # The module is its own tree: the facts the pre-pass reads from every file, from it alone.
        data = text.encode("utf-8", "replace")
        options = replace(options, window_facts=scan_window_facts([(display_path, data)]))
        if options.project_callers == ProjectCallers():
            options = replace(options, project_callers=scan_callers([data]))
    state = migration_state(location_path or display_path, options)
    gate = CodeGate.of(text, state, codemods) if prose_gate else OPEN_GATE
    try:
        return _transform_reduced(text, display_path, options, codemods, location_path, state, gate)
    except _ProseOnly:
        return _transform_reduced(text, display_path, options, codemods, location_path, state, OPEN_GATE)


def _transform_reduced(
    text: str,
    display_path: str,
    options: TransformOptions,
    codemods: tuple[type[MigrationCodemod], ...],
    location_path: str | None,
    state: MigrationState,
    gate: CodeGate,
) -> TextOutcome:
    elision = elide(text, body_words(codemods, options, text, state, gate)) if options.elide else None
    if elision is not None:
        outcome = _transform_text(elision.text, display_path, options, codemods, location_path, gate)
        restored = elision.restore(outcome.text)
        if restored is not None:
            full, shifts = restored
            items = tuple(replace(i, line=restored_line(i.line, shifts)) for i in outcome.review_items)
            return replace(outcome, text=full, review_items=items)
        # A codemod moved or re-indented a placeholder: transform the whole text instead.
    return _transform_text(text, display_path, options, codemods, location_path, gate)


def _transform_text(
    text: str,
    display_path: str,
    options: TransformOptions,
    codemods: tuple[type[MigrationCodemod], ...],
    location_path: str | None,
    gate: CodeGate = OPEN_GATE,
) -> TextOutcome:
    module = cst.parse_module(text)
    if module.code != text:
        raise NotRoundTrippable(
            "LibCST cannot reproduce this file byte for byte (form feed, trailing "
            "whitespace or a final backslash comment); file left untouched"
        )
    state = migration_state(location_path or display_path, options)
    state.old_api_in_code = gate.admitted is None
    context = CodemodContext(filename=display_path, scratch={STATE_KEY: state})
    current = text
    # Another project's ModelWorkerBatch (a JAX port, say): nothing here is SGLang's old API.
    foreign = imports_foreign_old_class(module, state.location)
    if not foreign and options.collapse_compat and ReportWildShapes in codemods and options.runs(ReportWildShapes):
        # --collapse-compat: each version gate becomes the code it runs on the new API, before any
        # codemod looks at the module; the gates it cannot collapse stay, reported (MWB154).
        collapsed = collapse_version_gates(module, state)
        if collapsed.code != current:
            state.changed_by.append(ReportWildShapes.CODE)
            current = collapsed.code
            module = collapsed
    # Version-gated code already runs on both APIs, and a blind rewrite would break its legacy
    # branch: every codemod leaves a gate's region (its function, or the statement itself) as it
    # is, and the rest of the file migrates (MigrationCodemod.on_visit, analysis.version_gates).
    viewed, view = text, None  # the code view of `viewed`, computed once an edit changed the text
    for codemod in codemods if not foreign else ():
        if not options.runs(codemod):
            continue
        if gate.admitted is not None and current != text:
            if viewed != current:
                viewed, view = current, code_view(current)
            gate.check_still_prose(codemod, view)
        if not gate.admits(codemod):
            continue
        if not codemod.applies_to(current, state):
            continue
        instance = codemod(context)
        transformed = instance.transform_module(module)
        rendered = transformed.code
        found: PassFindings = instance.pass_findings()
        # A pass that only found things leaves the module (and its resolved scopes) as it was; it
        # still changed the output when one of its markers is new there.
        if rendered != current or found.added_text:
            state.changed_by.append(codemod.CODE)
        state.findings.commit(found, adopted=rendered != current)
        if rendered != current:
            current = rendered
            module = transformed  # otherwise the old object, whose resolved metadata stays valid
    if context.scratch.get(RemoveImportsVisitor.CONTEXT_KEY):
        module = _pruned_imports(context, module, state.findings)
    if context.scratch.get(AddImportsVisitor.CONTEXT_KEY):
        # AddImportsVisitor's own output, without its deep copy and two walks, or the tree's import
        # sorter's placement (engine/import_insertion.py).
        from mwbmigrate.engine.import_insertion import insert_imports

        module = insert_imports(module, context, options.import_sorting, options.wrap_line_length)
        context.scratch.pop(AddImportsVisitor.CONTEXT_KEY, None)
    # One rendering of the final module for positions: the items and the marker layout share it.
    positions = LocalPositions().within(module) if state.findings else {}
    items = _review_items(positions, module.code, display_path, state.findings)
    new_text = module.code
    if options.markers and state.findings:

        def shown(finding: Finding) -> bool:
            return options.note_markers or code_kind(finding.code) != NOTE

        placements = marker_placements(module, state.findings, shown, positions)
        markers = {id(p.slot): (p.slot, p.text) for p in placements}
        module = module.visit(RenderFindings(markers))  # once, after every codemod
        new_text, shifts = lift_long_markers(module.code, placements, options.line_length)
        items = tuple(replace(item, line=shifted_line(item.line, shifts)) for item in items)
    return TextOutcome(new_text, items, tuple(dict.fromkeys(state.changed_by)), tuple(sorted(state.renamed_signatures)))


MAX_NESTING = 200  # CPython's own parser limit; LibCST's native parser overflows the stack far past it


def _too_deep(text: str, path: str) -> tuple[str | None, bool]:
    """(a reason when brackets nest deeper than Python allows, whether this Python compiles it).

    LibCST's native parser would crash the whole process on such nesting, so it is never asked.
    """
    try:
        compile(text, path, "exec", dont_inherit=True)
        return None, True
    except SyntaxError as error:
        if "too many nested parentheses" in str(error):
            return f"brackets nested deeper than {MAX_NESTING} levels; file left untouched", False
    except (RecursionError, MemoryError):
        return "too deeply nested to parse; file left untouched", False
    except ValueError:
        return None, False
    # Not valid for this Python: measure the nesting ourselves before LibCST sees it.
    depth = deepest = 0
    try:
        for token in tokenize.generate_tokens(io.StringIO(text).readline):
            if token.type == tokenize.OP and token.string in "([{":
                depth += 1
                deepest = max(deepest, depth)
            elif token.type == tokenize.OP and token.string in ")]}":
                depth -= 1
    except (tokenize.TokenError, SyntaxError):
        pass
    if deepest > MAX_NESTING:
        return f"brackets nested deeper than {MAX_NESTING} levels; file left untouched", False
    return None, False


def _validate(new_text: str, original_compiles: bool, path: str) -> None:
    if not original_compiles:
        # The original targets another Python than this one: LibCST's re-parse is the check left.
        cst.parse_module(new_text)
        return
    compile(new_text, path, "exec", dont_inherit=True)


def transform_file(
    path: Path,
    display_path: str,
    options: TransformOptions,
    codemods: tuple[type[MigrationCodemod], ...] = CODEMODS,
    source_text: str | None = None,
    data: bytes | None = None,
) -> FileResult:
    """Read, prefilter, transform and validate one file. Never raises; never writes.

    `data`: the module's bytes when they come from elsewhere than `path` (stdin); `path` then only
    says where the module lives."""

    def failed(reason: str) -> FileResult:
        return FileResult(str(path), display_path, FileStatus.FAILED, error=reason)

    decoded: DecodedSource
    try:
        if data is None:
            if path.is_symlink() and not path.exists():
                return failed("broken symbolic link")
            if path.is_dir():
                return failed("is a directory")
            data = read_regular_file(path)
        if source_text is None and not options.candidate(data, str(path)):
            return FileResult(str(path), display_path, FileStatus.SKIPPED)
        decoded = decode_source(data)
    except UnreadableFile as error:
        return failed(str(error))
    except PermissionError:
        return failed("permission denied")
    except UnreadableSource as error:
        return failed(str(error))
    except OSError as error:
        return failed(f"cannot read: {error.strerror or error}")

    original = decoded.text
    if CR_ONLY.search(original):
        return failed("old Mac (CR-only) line endings are not supported; file left untouched")
    nesting, original_compiles = _too_deep(original, os.fspath(path))
    if nesting:
        return failed(nesting)
    text = source_text if source_text is not None else original
    try:
        outcome = transform_source(
            text, display_path, options, codemods, location_path=os.fspath(path), prose_gate=source_text is None
        )
    except cst.ParserSyntaxError as error:
        return replace(failed(f"does not parse: {error.message.splitlines()[0]}"), parsed=True)
    except NotRoundTrippable as error:
        return replace(failed(str(error)), parsed=True)
    except RecursionError:
        return replace(failed("too deeply nested to parse"), parsed=True)
    except Exception as error:  # a codemod bug must never cost the user a file
        return replace(
            failed(f"internal error in a codemod ({error.__class__.__name__}: {error}); file left untouched"),
            parsed=True,
        )

    new_text = outcome.text
    try:
        _validate(new_text, original_compiles, os.fspath(path))
    except (SyntaxError, cst.ParserSyntaxError, ValueError) as error:
        return replace(failed(f"rewritten text did not compile ({error}); file left untouched"), parsed=True)
    try:
        decoded.encode(new_text)
    except UnicodeEncodeError:
        return replace(
            failed(f"rewritten text cannot be encoded as {decoded.encoding}; file left untouched"), parsed=True
        )
    status = FileStatus.CHANGED if new_text != original else FileStatus.UNCHANGED
    return FileResult(
        path=str(path),
        display_path=display_path,
        status=status,
        original=original if status is FileStatus.CHANGED else None,
        rewritten=new_text if status is FileStatus.CHANGED else None,
        encoding=decoded.encoding,
        has_bom=decoded.has_bom,
        review_items=outcome.review_items,
        applied=outcome.applied,
        renamed_signatures=outcome.renamed_signatures,
        parsed=True,
    )
