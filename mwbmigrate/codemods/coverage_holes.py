"""The end check: old API that every other codemod left in place, with nothing said, is reported.

Runs after every rewrite of the first pass. Any code token still naming SGLang's old class (a
name, `module.ModelWorkerBatch`, an import, a string annotation or a type comment) or the old
method (`x.get_model_worker_batch`), on a statement that carries no review marker, is a coverage
hole: it breaks on 0.5.13 and no other rule saw it. It gets MWB151, so nothing is ever silent.

    x = registry.get_model_worker_batch   ->   x = registry.get_model_worker_batch  # mwbmigrate: MWB151 old API left here: ...

A bare `ModelWorkerBatch` that nothing binds is SGLang's old class when a star import could have
bound it (any star import: one from SGLang's `schedule_batch` is followed by every codemod, one from
elsewhere may re-export it). Rewrites nothing.
"""

from __future__ import annotations

import re

import libcst as cst
from libcst.codemod import CodemodContext
from libcst.metadata import ScopeProvider

from mwbmigrate.analysis.names import OLD_PARAMETER, TYPE_COMMENT
from mwbmigrate.analysis.old_api import OLD_CLASS, OLD_METHOD, old_class_spellings
from mwbmigrate.analysis.receivers import all_params
from mwbmigrate.codemods.base import MARKER_PREFIX, MigrationCodemod, NodeSet


class _StarImports(cst.CSTVisitor):
    found = False

    def visit_ImportFrom(self, node: cst.ImportFrom) -> None:
        self.found = self.found or isinstance(node.names, cst.ImportStar)


class ReportCoverageHoles(MigrationCodemod):
    CODE = "MWB020"
    NAME = "coverage-holes"
    SUMMARY = "Rewrites nothing: reports old API (class, method, string annotation, type comment) left on a statement with no review marker (MWB151)."
    TRIGGERS = (OLD_CLASS, OLD_PARAMETER)
    REVIEW_CODES = ("MWB151",)
    METADATA_DEPENDENCIES = (ScopeProvider,)

    def __init__(self, context: CodemodContext) -> None:
        super().__init__(context)
        self._pattern: re.Pattern[str] | None = None
        self._any_star_import = False
        self._reported = NodeSet()

    def visit_Module(self, node: cst.Module) -> None:
        scope = self.get_metadata(ScopeProvider, node, None)
        if scope is not None:
            self._pattern = old_class_spellings(node, scope, self.state.location).pattern()
        stars = _StarImports()
        node.visit(stars)
        self._any_star_import = stars.found

    def _hole(
        self, node: cst.CSTNode, token: str, why: str = "no rule migrated or reported it; it breaks on 0.5.13"
    ) -> None:
        statement = self.enclosing_statement(node)
        if self.reported_on(statement) or statement in self._reported:
            return  # reported already: one marker a statement is enough to send the reader there
        self._reported.add(statement)
        self.review(node, "MWB151", f"old API left here: `{token}` ({why})")

    # -- code tokens -------------------------------------------------------------------------------
    def visit_Name(self, node: cst.Name) -> None:
        if node.value != OLD_CLASS or isinstance(self.parent(node), cst.Attribute):
            return  # `x.ModelWorkerBatch` is judged as a whole, in visit_Attribute
        if isinstance(self.parent(node), (cst.ClassDef, cst.FunctionDef, cst.ImportAlias)):
            return  # a definition of that name is another class (SGLang's own is removed); imports below
        if self.names_old_class(node) or self._unbound_under_star_import(node):
            self._hole(node, OLD_CLASS)

    def visit_Attribute(self, node: cst.Attribute) -> None:
        if node.attr.value == OLD_METHOD:
            self._hole(node, f"{_code(node.value)}.{OLD_METHOD}")
        elif node.attr.value == OLD_CLASS and self.names_old_class(node):
            self._hole(node, _code(node))

    def visit_ImportAlias(self, node: cst.ImportAlias) -> None:
        # `from <schedule_batch> import ModelWorkerBatch` left in place: it fails on 0.5.13.
        if isinstance(node.name, cst.Name) and node.name.value == OLD_CLASS and self.names_old_class(node.name):
            self._hole(node, f"import {OLD_CLASS}")

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        # An `@overload` stub keeping `model_worker_batch` while its implementation was renamed
        # (the stub was typed as something else): type checkers then reject `batch=` callers.
        if not any(_names_overload(d.decorator) for d in node.decorators):
            return
        if OLD_PARAMETER not in _param_names(node):
            return
        block = self.parent(node)
        siblings = block.body if isinstance(block, (cst.Module, cst.IndentedBlock)) else ()
        implementations = [
            s
            for s in siblings
            if isinstance(s, cst.FunctionDef)
            and s.name.value == node.name.value
            and not any(_names_overload(d.decorator) for d in s.decorators)
        ]
        if implementations and all(OLD_PARAMETER not in _param_names(s) for s in implementations):
            self._hole(
                node,
                OLD_PARAMETER,
                f"an @overload of `{node.name.value}`, whose implementation was renamed: rename it here too",
            )

    def _unbound_under_star_import(self, node: cst.Name) -> bool:
        scope = self.get_metadata(ScopeProvider, node, None)
        return self._any_star_import and scope is not None and OLD_CLASS not in scope

    # -- not code, but read by type checkers -------------------------------------------------------
    def visit_SimpleString(self, node: cst.SimpleString) -> None:
        if self._pattern is not None and self._in_annotation(node) and self._pattern.search(node.value):
            self._hole(node, f"{OLD_CLASS} in a string annotation")

    def visit_Comment(self, node: cst.Comment) -> None:
        head = node.value.split(MARKER_PREFIX, 1)[0]
        if self._pattern is not None and TYPE_COMMENT.search(head) and self._pattern.search(head):
            self._hole(node, f"{OLD_CLASS} in a type comment")

    def _in_annotation(self, node: cst.CSTNode) -> bool:
        current = self.parent(node)
        while current is not None and not isinstance(current, (cst.BaseStatement, cst.Module)):
            if isinstance(current, cst.Annotation):
                return True
            current = self.parent(current)
        return False


def _names_overload(decorator: cst.BaseExpression) -> bool:
    return (isinstance(decorator, cst.Name) and decorator.value == "overload") or (
        isinstance(decorator, cst.Attribute) and decorator.attr.value == "overload"
    )


def _param_names(function: cst.FunctionDef) -> set[str]:
    return {param.name.value for param in all_params(function.params)}


def _code(node: cst.CSTNode) -> str:
    return cst.Module([]).code_for_node(node)
