"""The contract of one shape's reporter, and how `ReportWildShapes` dispatches to it."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, ClassVar

import libcst as cst

if TYPE_CHECKING:
    from mwbmigrate.codemods.wild_shapes.codemod import ReportWildShapes

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

    def __init__(self, shapes: ReportWildShapes) -> None:
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
