"""The contract of one shape's reporter, and how `ReportWildShapes` dispatches to it."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, ClassVar, Protocol

import libcst as cst

from mwbmigrate.codemods.base import MigrationState
from mwbmigrate.codemods.wild_shapes.facts import FunctionFrame


class ShapeContext(Protocol):
    """What a reporter reads of the codemod that runs it (`ReportWildShapes`), and may report
    through: the classes and function around the node, and which names hold the old object."""

    state: MigrationState
    classes: list[tuple[str, bool]]  # (name, defines the old method), outermost first

    @property
    def function(self) -> FunctionFrame | None: ...

    def ancestors(self) -> tuple[cst.CSTNode, ...]: ...

    def in_annotation(self) -> bool: ...

    def parent(self, node: cst.CSTNode) -> cst.CSTNode | None: ...

    def enclosing_statement(self, node: cst.CSTNode) -> cst.CSTNode: ...

    def reads_old_object(self, node: cst.CSTNode) -> bool: ...

    def names_old_class(self, node: cst.CSTNode) -> bool: ...

    def mentions_old_class(self, node: cst.CSTNode) -> bool: ...

    def qualified_names(self, func: cst.BaseExpression) -> set[str]: ...

    def get_metadata(self, key: Any, node: cst.CSTNode, default: Any = ...) -> Any: ...

    def review(self, node: cst.CSTNode, code: str, reason: str, suggestion: str = "") -> None: ...


# A reporter's visit of one node type. True claims the node: the reporters after it (in
# `codemod.REPORTERS` order) do not see it, which is how shapes that exclude each other at one site
# stay exclusive (an attribute assigned a mock is a mock, not a run-time assignment of the method).
Handler = Callable[[Any], "bool | None"]


class ShapeReporter:
    """Detects one documented shape of old-API code in the wild and reports it; rewrites nothing.

    A reporter registers the node types it handles (`handlers`), and may take part in the
    assignment event (`on_assigned`: once per target of each `=` and annotated assignment, before
    the assignment's own node handlers). It reads the facts the codemod keeps while it walks (the
    class and function being visited, the names that hold the old object) through `self.shapes`.
    """

    SHAPE: ClassVar[str]  # the row of README's "code in the wild" table
    CODES: ClassVar[tuple[str, ...]] = ()  # every review code it may emit

    def __init__(self, shapes: ShapeContext) -> None:
        self.shapes = shapes

    def handlers(self) -> Mapping[type[cst.CSTNode], Handler]:
        """The node types this reporter visits, each with its handler."""
        return {}

    def on_assigned(self, anchor: cst.CSTNode, target: cst.BaseExpression, value: cst.BaseExpression) -> bool:
        """One target of an assignment (`anchor`, which is on the visiting path; the target is not
        yet). True claims the target for this reporter."""
        return False

    def review(self, node: cst.CSTNode, code: str, reason: str) -> None:
        self.shapes.review(node, code, reason)
