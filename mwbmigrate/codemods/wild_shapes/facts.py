"""Facts about a module that the shape reporters, and the rewriting codemods, share."""

from __future__ import annotations

from dataclasses import dataclass

import libcst as cst

from mwbmigrate.analysis.old_api import OLD_METHOD
from mwbmigrate.analysis.receivers import FunctionFacts
from mwbmigrate.analysis.version_gates import (
    _OLD_TOKEN,
    OLD_TOKENS,
    dotted,
)

# An old-API token (a Name or SimpleString) and the innermost statement around it.
Token = tuple[cst.CSTNode, cst.CSTNode]


def code(node: cst.CSTNode) -> str:
    return cst.Module([]).code_for_node(node)


def defines_old_method(node: cst.ClassDef) -> bool:
    if not isinstance(node.body, cst.IndentedBlock):
        return False
    return any(isinstance(s, cst.FunctionDef) and s.name.value == OLD_METHOD for s in node.body.body)


def method_classes(module: cst.Module) -> set[str]:
    """Classes of this module that define their own `get_model_worker_batch` (adapters, fakes)."""
    found: set[str] = set()

    class _Classes(cst.CSTVisitor):
        def on_visit(self, node: cst.CSTNode) -> bool:
            # Classes are statements: expressions (most of a module's nodes) cannot hold one.
            return not isinstance(node, cst.BaseExpression) and super().on_visit(node)

        def visit_ClassDef(self, node: cst.ClassDef) -> None:
            if defines_old_method(node):
                found.add(node.name.value)

    module.visit(_Classes())
    return found


def local_instances(function: cst.FunctionDef, method_classes: set[str]) -> dict[str, str]:
    """Locals of `function` bound to `Cls(...)` where `Cls` (of this module) defines its own old method.

    Their `get_model_worker_batch()` is that class's, not SGLang's, and must not be eliminated.
    """
    found: dict[str, str] = {}
    if not method_classes:
        return found

    class _Assigns(cst.CSTVisitor):
        def visit_Assign(self, node: cst.Assign) -> None:
            if isinstance(node.value, cst.Call):
                owner = dotted(node.value.func)
                if owner in method_classes:
                    for target in node.targets:
                        if isinstance(target.target, cst.Name):
                            found[target.target.value] = owner

    function.body.visit(_Assigns())
    return found


class FunctionScan(cst.CSTVisitor):
    """Old-API tokens of one function (nested definitions excepted), each with its innermost
    statement, and the statement of every Name."""

    def __init__(self, root: cst.CSTNode) -> None:
        self.root = root
        self.statements: list[cst.CSTNode] = []
        self.tokens: list[Token] = []
        self.names: dict[cst.Name, cst.CSTNode] = {}  # every Name -> its statement

    def on_visit(self, node: cst.CSTNode) -> bool:
        if isinstance(node, (cst.FunctionDef, cst.ClassDef)) and node is not self.root:
            return False
        if isinstance(node, (cst.SimpleStatementLine, cst.BaseCompoundStatement)) and not (
            node is self.root and isinstance(node, cst.FunctionDef)
        ):
            self.statements.append(node)
        return super().on_visit(node)

    def on_leave(self, original_node: cst.CSTNode) -> None:
        if self.statements and self.statements[-1] is original_node:
            self.statements.pop()
        super().on_leave(original_node)

    def visit_Name(self, node: cst.Name) -> None:
        if self.statements:
            self.names[node] = self.statements[-1]
            if node.value in OLD_TOKENS:
                self.tokens.append((node, self.statements[-1]))

    def visit_SimpleString(self, node: cst.SimpleString) -> None:
        if _OLD_TOKEN.search(node.value) and self.statements:
            self.tokens.append((node, self.statements[-1]))


def region_tokens(region: cst.CSTNode) -> list[Token]:
    """Old-API tokens of a gated region (nested definitions included), each with its innermost
    statement; a token of a `def` line (a parameter) belongs to the `def`."""
    found: list[Token] = []
    statements: list[cst.CSTNode] = []

    class _Tokens(cst.CSTVisitor):
        def on_visit(self, node: cst.CSTNode) -> bool:
            if isinstance(node, (cst.SimpleStatementLine, cst.BaseCompoundStatement)):
                statements.append(node)
            if isinstance(node, cst.Name) and node.value in OLD_TOKENS:
                found.append((node, statements[-1]))
            if isinstance(node, cst.SimpleString) and _OLD_TOKEN.search(node.value):
                found.append((node, statements[-1]))
            return True

        def on_leave(self, original_node: cst.CSTNode) -> None:
            if statements and statements[-1] is original_node:
                statements.pop()

    region.visit(_Tokens())
    return found


@dataclass
class FunctionFrame:
    """What the codemod knows about a function while it visits the function's body."""

    node: cst.FunctionDef
    tokens: dict[cst.CSTNode, cst.CSTNode]  # old-API token node -> its statement
    names: dict[cst.Name, cst.CSTNode]  # every Name of the body -> its statement
    local_instances: dict[str, str]  # local name -> class (of this module) defining the old method
    facts: FunctionFacts  # which names hold the old object (analysis.receivers)
