"""LibCST's scopes, completed where they miss what Python does."""

from __future__ import annotations

from typing import cast

import libcst as cst
import libcst.matchers as m
from libcst.metadata import Access, BaseAssignment, MetadataWrapper, ScopeProvider

_FUTURE_ANNOTATIONS = m.ImportFrom(
    module=m.Name("__future__"), names=[m.ZeroOrMore(), m.ImportAlias(name=m.Name("annotations")), m.ZeroOrMore()]
)


def _defers_annotations(module: cst.Module) -> bool:
    return any(
        isinstance(statement, cst.SimpleStatementLine)
        and any(m.matches(s, _FUTURE_ANNOTATIONS) for s in statement.body)
        for statement in module.body
    )


def link_deferred_annotations(wrapper: MetadataWrapper) -> None:
    """Under `from __future__ import annotations` no annotation is evaluated where it stands: it
    names what its scope binds when it is read (`typing.get_type_hints`), below it too. LibCST links
    an access only to the bindings before it, so an annotation naming a class imported further down
    would look unbound, and its import unused. Such an annotation is linked to every binding of its
    name that its scope sees. Resolves `ScopeProvider` on `wrapper` (cached there)."""
    if not _defers_annotations(wrapper.module):
        return
    scopes = {scope for scope in wrapper.resolve(ScopeProvider).values() if scope is not None}
    for scope in scopes:
        for access in scope.accesses:
            if not access.is_annotation or access.referents or not isinstance(access.node, cst.Name):
                continue
            for assignment in access.scope[access.node.value]:
                # `record_assignment`/`record_access` drop a binding below the access: the sets
                # behind `referents` and `references` take it (tests/analysis/test_scopes.py).
                cast("set[BaseAssignment]", access.referents).add(assignment)
                cast("set[Access]", assignment.references).add(access)


class OwnScopeVisitor(cst.CSTVisitor):
    """A walk of one scope's own code: a nested function, lambda or class body runs later, if ever,
    with its own names, so it is not entered (a subclass that needs it overrides the visit)."""

    def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
        return False

    def visit_ClassDef(self, node: cst.ClassDef) -> bool:
        return False

    def visit_Lambda(self, node: cst.Lambda) -> bool:
        return False


def printed_expressions(node: cst.CSTNode) -> dict[str, list[cst.FormattedStringExpression]]:
    """The self-documenting f-string parts under `node` (`f"{mwb.seq_lens=}"`), by each name their
    expression reads: they print the expression's source, so renaming a name there changes the text."""
    printed: dict[str, list[cst.FormattedStringExpression]] = {}
    for found in m.findall(node, m.FormattedStringExpression(equal=m.AssignEqual())):
        part = cst.ensure_type(found, cst.FormattedStringExpression)
        for name in m.findall(part.expression, m.Name()):
            printed.setdefault(cst.ensure_type(name, cst.Name).value, []).append(part)
    return printed
