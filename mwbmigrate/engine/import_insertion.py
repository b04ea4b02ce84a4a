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
"""

from __future__ import annotations

from typing import Union

import libcst as cst
import libcst.matchers as m
from libcst.codemod import CodemodContext
from libcst.codemod.visitors import AddImportsVisitor

_Statement = Union[cst.SimpleStatementLine, cst.BaseCompoundStatement]
_ONE_IMPORT = m.SimpleStatementLine(body=[m.ImportFrom() | m.Import()])
# What the visitor lets stand before the leading imports (its `_skip_first`).
_STRICT_FLAG = m.SimpleStatementLine(body=[m.Assign(targets=[m.AssignTarget(target=m.Name("__strict__"))])])
_DOCSTRING = m.SimpleStatementLine(body=[m.Expr(value=m.SimpleString())])


def _leading_statements(module: cst.Module) -> int:
    """How many statements the visitor's gatherer can read: a docstring or `__strict__` flag, then
    the run of one-import lines right after it."""
    body = module.body
    index = 1 if body and (m.matches(body[0], _STRICT_FLAG) or m.matches(body[0], _DOCSTRING)) else 0
    while index < len(body) and m.matches(body[index], _ONE_IMPORT):
        index += 1
    return index


class _TopLevelImports(AddImportsVisitor):
    """The visitor, gathering from the leading statements only (the rest cannot change what it finds)."""

    def visit_Module(self, node: cst.Module) -> None:
        head = node.with_changes(body=node.body[: _leading_statements(node)])
        super().visit_Module(head)


def insert_imports(module: cst.Module, context: CodemodContext) -> cst.Module:
    """`module` with the imports scheduled in `context` added, as `AddImportsVisitor` would add them.

    The scheduled imports stay in `context.scratch` (the caller clears them, as with the visitor)."""
    inserter = _TopLevelImports(context)
    inserter.visit_Module(module)
    gathered = {id(node) for node in inserter.all_imports}
    body: list[_Statement] = list(module.body)
    for index, statement in enumerate(body):
        if not m.matches(statement, _ONE_IMPORT):
            continue  # the gathered imports are one-import lines; any other statement is not touched
        assert isinstance(statement, cst.SimpleStatementLine)
        node = statement.body[0]
        if isinstance(node, cst.ImportFrom) and id(node) in gathered:
            updated = inserter.leave_ImportFrom(node, node)
            if updated is not node:
                body[index] = statement.with_changes(body=[updated])
    updated_module = module.with_changes(body=body)
    return inserter.leave_Module(module, updated_module)
