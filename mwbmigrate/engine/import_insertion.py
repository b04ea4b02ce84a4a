"""Add the imports codemods asked for (`AddImportsVisitor.add_needed_import`) without walking the module.

LibCST's `AddImportsVisitor.transform_module` deep-copies the module (its metadata wrapper) and walks
it twice (once to gather the leading imports, once to transform), although everything it reads or
edits is a top-level statement: the leading docstring or `__strict__` flag, the block of imports that
follows, and the spot after that block where new imports go. `insert_imports` hands the visitor's own
methods exactly those statements, so its output is the visitor's, byte for byte, at a fraction of
the cost.

The parity rests on three facts about `AddImportsVisitor` (LibCST 1.x), each checked by
tests/engine/test_import_insertion.py against the visitor itself:
- its gatherer reads only `leave_Module`'s leading statements (`_GatherTopImportsBeforeStatements`);
- `leave_ImportFrom` edits an import only when it is one of those gathered nodes (by identity);
- `leave_Module` splits the body by index and never looks inside other statements.
Nested imports (a function's, an `if TYPE_CHECKING:` block's) are neither read nor edited by it, so
they are not visited here either.

When the tree configures an import sorter (`ImportSorting`, read by config.project_import_sorting)
and its leading import block is sorted the way that sorter sorts, the new imports go where the
sorter would put them instead: in their section (future, standard library, third party, first
party, local folder), in order, a new section with its blank line when the block has none; names
added to an existing `from` import are sorted in with the others; a line longer than the tree's
line length is wrapped as black and isort's black profile wrap it. A block that is not sorted keeps
the visitor's placement: sorting it would reorder the user's own imports.
"""

from __future__ import annotations

from typing import Sequence, Union

import libcst as cst
import libcst.matchers as m
from libcst.codemod import CodemodContext
from libcst.codemod.visitors import AddImportsVisitor
from libcst.helpers import get_full_name_for_node

from mwbmigrate.engine.import_sorting import (
    ImportEntry,
    ImportSorting,
)

_Statement = Union[cst.SimpleStatementLine, cst.BaseCompoundStatement]
_ONE_IMPORT = m.SimpleStatementLine(body=[m.ImportFrom() | m.Import()])
# What the visitor lets stand before the leading imports (its `_skip_first`).
_STRICT_FLAG = m.SimpleStatementLine(body=[m.Assign(targets=[m.AssignTarget(target=m.Name("__strict__"))])])
_DOCSTRING = m.SimpleStatementLine(body=[m.Expr(value=m.SimpleString())])


def _leading_statements(module: cst.Module) -> int:
    """How many statements the visitor's gatherer can read: a docstring or `__strict__` flag, then
    the run of one-import lines right after it."""
    body = module.body
    index = _first_import_slot(module)
    while index < len(body) and m.matches(body[index], _ONE_IMPORT):
        index += 1
    return index


def _first_import_slot(module: cst.Module) -> int:
    """Where the leading imports start: after a docstring or `__strict__` flag."""
    body = module.body
    return 1 if body and (m.matches(body[0], _STRICT_FLAG) or m.matches(body[0], _DOCSTRING)) else 0


class _TopLevelImports(AddImportsVisitor):
    """The visitor, gathering from the leading statements only (the rest cannot change what it finds)."""

    def visit_Module(self, node: cst.Module) -> None:
        head = node.with_changes(body=node.body[: _leading_statements(node)])
        super().visit_Module(head)


def insert_imports(
    module: cst.Module,
    context: CodemodContext,
    sorting: ImportSorting | None = None,
    line_length: int | None = None,
) -> cst.Module:
    """`module` with the imports scheduled in `context` added, as `AddImportsVisitor` would add them,
    or, with `sorting`, where the tree's import sorter puts them (when the leading block is sorted).
    With `line_length`, an added or extended import longer than it is wrapped, one name a line
    (placed by the sorter, at the sorter's line length).

    The scheduled imports stay in `context.scratch` (the caller clears them, as with the visitor)."""
    inserter = _TopLevelImports(context)
    inserter.visit_Module(module)
    gathered = {id(node) for node in inserter.all_imports}
    start, end = _first_import_slot(module), _leading_statements(module)
    block = _sorted_block(module.body[start:end], sorting) if sorting is not None else None
    body: list[_Statement] = list(module.body)
    for index, statement in enumerate(body):
        if not m.matches(statement, _ONE_IMPORT):
            continue  # the gathered imports are one-import lines; any other statement is not touched
        assert isinstance(statement, cst.SimpleStatementLine)
        node = statement.body[0]
        if isinstance(node, cst.ImportFrom) and id(node) in gathered:
            updated = inserter.leave_ImportFrom(node, node)
            if updated is not node:
                if sorting is not None and block is not None:
                    updated = _names_sorted_in(node, updated, sorting, module)
                body[index] = statement.with_changes(body=[updated])
    updated_module = module.with_changes(body=body)
    if sorting is not None and block is not None:
        statements = _new_statements(inserter, module, sorting, sorting.line_length)
        return _placed(updated_module, start, end, block, statements, sorting)
    inserted = inserter.leave_Module(module, updated_module)
    return inserted if line_length is None else _wrapped_imports(inserted, module, line_length)


def _wrapped_imports(inserted: cst.Module, module: cst.Module, line_length: int) -> cst.Module:
    """`inserted` with each import line that is not one of `module`'s, and is longer than
    `line_length` or was written one name a line, laid out one name a line (an import with a
    comment is left as it is)."""
    kept = {id(statement) for statement in module.body}
    body = list(inserted.body)
    for index, statement in enumerate(body):
        if id(statement) in kept or not m.matches(statement, m.SimpleStatementLine(body=[m.ImportFrom()])):
            continue
        node = cst.ensure_type(cst.ensure_type(statement, cst.SimpleStatementLine).body[0], cst.ImportFrom)
        code = inserted.code_for_node(node)
        fits = "\n" not in code and len(code) <= line_length  # an exploded import stays exploded
        if isinstance(node.names, cst.ImportStar) or "#" in code or fits:
            continue
        names = [_alias_code(alias, inserted) for alias in node.names]
        wrapped = _laid_out(node, names, True, line_length, inserted)
        body[index] = statement.with_changes(body=[wrapped])
    return inserted.with_changes(body=body)


# -- placing imports as the tree's import sorter does ----------------------------------------

# What a statement after the imports needs before it: two blank lines for a definition, else one.
_DEFINITION = m.ClassDef() | m.FunctionDef()


def _parsed(statement: cst.BaseStatement) -> ImportEntry | None:
    """The import a leading-block line holds; None for `import a, b` (a sorter splits it)."""
    node = cst.ensure_type(statement, cst.SimpleStatementLine).body[0]
    if isinstance(node, cst.Import):
        if len(node.names) != 1:
            return None
        return ImportEntry(get_full_name_for_node(node.names[0].name) or "", True)
    node = cst.ensure_type(node, cst.ImportFrom)
    dots = "." * len(node.relative)
    return ImportEntry(dots + (get_full_name_for_node(node.module) or "" if node.module is not None else ""), False)


def _blank_lines(lines: Sequence[cst.EmptyLine]) -> tuple[int, bool]:
    """(the empty lines before the first comment, whether an empty line follows a comment)."""
    leading = 0
    while leading < len(lines) and lines[leading].comment is None:
        leading += 1
    return leading, any(line.comment is None for line in lines[leading:])


def _sorted_block(block: Sequence[_Statement], sorting: ImportSorting) -> list[ImportEntry] | None:
    """The block's imports when it is sorted as the sorter sorts (sections in order, one blank line
    between sections and none inside one, each section in order), else None."""
    entries: list[ImportEntry] = []
    for index, statement in enumerate(block):
        entry = _parsed(statement)
        if entry is None:
            return None
        if index:
            previous = entries[-1]
            section, previous_section = sorting.section(entry.module), sorting.section(previous.module)
            blank, gap_after_comment = _blank_lines(statement.leading_lines)
            if gap_after_comment or section < previous_section:
                return None
            if section == previous_section and (
                blank or sorting.statement_key(entry) < sorting.statement_key(previous)
            ):
                return None
            if section != previous_section and blank != 1:
                return None
        entries.append(entry)
    return entries


def _names_sorted_in(
    original: cst.ImportFrom, updated: cst.ImportFrom, sorting: ImportSorting, module: cst.Module
) -> cst.ImportFrom:
    """The visitor's merge (new names first), with the names in the sorter's order when they were
    in it already; laid out again, exploded when it was or when it no longer fits."""
    if isinstance(original.names, cst.ImportStar) or isinstance(updated.names, cst.ImportStar):
        return updated
    keys = [sorting.name_key(alias.evaluated_name) for alias in original.names]
    if keys != sorted(keys) or "#" in module.code_for_node(original):
        return updated  # the user's own order, or comments a new layout would have to move
    names = sorted(updated.names, key=lambda alias: sorting.name_key(alias.evaluated_name))
    exploded = "\n" in module.code_for_node(original)
    names_code = [_alias_code(alias, module) for alias in names]
    return _laid_out(updated, names_code, exploded, sorting.line_length, module)


def _alias_code(alias: cst.ImportAlias, module: cst.Module) -> str:
    return module.code_for_node(alias.with_changes(comma=cst.MaybeSentinel.DEFAULT))


def _laid_out(
    node: cst.ImportFrom, names: list[str], exploded: bool, line_length: int, module: cst.Module
) -> cst.ImportFrom:
    """`from <module> import <names>` on one line when it fits and was not exploded, else one name a
    line in parentheses with a trailing comma (black's layout, and isort's black profile's)."""
    source = module.code_for_node(node.with_changes(names=cst.ImportStar(), lpar=None, rpar=None))
    head = source[: -len("*")]  # `from <module> import `
    line = head + ", ".join(names)
    if not exploded and len(line) <= line_length:
        text = line
    else:
        newline, indent = module.default_newline, module.default_indent
        text = head + "(" + newline + "".join(f"{indent}{name},{newline}" for name in names) + ")"
    statement = cst.parse_statement(text + module.default_newline, config=module.config_for_parsing)
    return cst.ensure_type(cst.ensure_type(statement, cst.SimpleStatementLine).body[0], cst.ImportFrom)


def _new_statements(
    inserter: AddImportsVisitor, module: cst.Module, sorting: ImportSorting, line_length: int
) -> list[cst.SimpleStatementLine]:
    """The imports the visitor's `leave_Module` would add, as lines of their own, wrapped to the
    sorter's line length."""

    def parsed(text: str) -> cst.SimpleStatementLine:
        statement = cst.parse_statement(text + module.default_newline, config=module.config_for_parsing)
        return cst.ensure_type(statement, cst.SimpleStatementLine)

    statements = [parsed(f"import {name}") for name in sorted(inserter.module_imports)]
    statements += [parsed(f"import {name} as {alias}") for name, alias in inserter.module_aliases.items()]
    names: dict[str, list[str]] = {}
    for name, objects in inserter.module_mapping.items():
        names.setdefault(name, []).extend(objects)
    for name, aliases in inserter.alias_mapping.items():
        names.setdefault(name, []).extend(f"{obj} as {alias}" for obj, alias in aliases)
    for name, imported in names.items():
        ordered = sorted(imported, key=lambda text: sorting.name_key(text.split(" ")[0]))
        statement = parsed(f"from {name} import " + ", ".join(ordered))
        node = cst.ensure_type(statement.body[0], cst.ImportFrom)
        statements.append(statement.with_changes(body=[_laid_out(node, ordered, False, line_length, module)]))
    return statements


def _placed(
    module: cst.Module,
    start: int,
    end: int,
    entries: list[ImportEntry],
    statements: list[cst.SimpleStatementLine],
    sorting: ImportSorting,
) -> cst.Module:
    """`module` with `statements` put into its leading block (`body[start:end]`, sorted, holding
    `entries`): each into its section, in order; a new section opens with a blank line."""
    if not statements:
        return module
    body = list(module.body)
    block: list[_Statement] = body[start:end]
    entries = list(entries)
    for statement in statements:
        entry = _parsed(statement)
        assert entry is not None, "added imports import one module each"
        section, key = sorting.section(entry.module), sorting.statement_key(entry)
        sections = [sorting.section(e.module) for e in entries]
        same = [i for i, s in enumerate(sections) if s == section]
        if same:
            index = next((i for i in same if sorting.statement_key(entries[i]) > key), same[-1] + 1)
        else:
            index = next((i for i, s in enumerate(sections) if s > section), len(entries))
        if index < len(block):
            following = block[index]
            blank, _ = _blank_lines(following.leading_lines)
            separator, comments = following.leading_lines[:blank], list(following.leading_lines[blank:])
            if index == 0 or sections[index] == section:
                # It goes first in the block, or before a line of its section: it takes that line's
                # separating empty lines (a comment above that line stays with it).
                statement = statement.with_changes(leading_lines=separator)
                opens = index == 0 and sections[index] != section
                block[index] = following.with_changes(leading_lines=([cst.EmptyLine()] if opens else []) + comments)
            else:
                # It ends its section, or is a section of its own before the next one.
                statement = statement.with_changes(leading_lines=[] if same else [cst.EmptyLine()])
        elif block:
            statement = statement.with_changes(leading_lines=[] if same else [cst.EmptyLine()])
        elif start:
            statement = statement.with_changes(leading_lines=[cst.EmptyLine()])  # after the module docstring
        block.insert(index, statement)
        entries.insert(index, entry)
    after = body[end:]
    if end == start and after:
        # A new block: as many blank lines after it as the sorter (and black) put there.
        needed = 2 if m.matches(after[0], _DEFINITION) else 1
        blank, _ = _blank_lines(after[0].leading_lines)
        kept = list(after[0].leading_lines[blank:])
        after[0] = after[0].with_changes(leading_lines=[cst.EmptyLine()] * needed + kept)
    return module.with_changes(body=[*body[:start], *block, *after])
