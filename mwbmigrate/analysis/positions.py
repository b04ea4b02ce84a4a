"""Line and column of nodes within one function, computed on demand.

LibCST's PositionProvider renders the whole module again after every codemod that changed it;
the analyses here only ever compare positions inside one function, so they render that function
alone. Lines count from the function's first line, which keeps every comparison between nodes of
the same function exact.
"""

from __future__ import annotations

from typing import Mapping, cast

import libcst as cst
from libcst.metadata import CodeRange
from libcst.metadata.position_provider import PositionProvider, PositionProvidingCodegenState


class LocalPositions:
    """Positions relative to a root node, one rendering per root object (nodes never change in place)."""

    def __init__(self) -> None:
        self._by_root: dict[int, tuple[cst.CSTNode, Mapping[cst.CSTNode, CodeRange]]] = {}

    def within(self, root: cst.CSTNode) -> Mapping[cst.CSTNode, CodeRange]:
        cached = self._by_root.get(id(root))
        if cached is not None and cached[0] is root:
            return cached[1]
        provider = PositionProvider()
        root._codegen(PositionProvidingCodegenState(default_indent="    ", default_newline="\n", provider=provider))
        # The provider's table is typed for lazy values, but PositionProvider stores each CodeRange itself.
        computed = cast("Mapping[cst.CSTNode, CodeRange]", provider._computed)
        self._by_root[id(root)] = (root, computed)
        return computed

    def line(self, node: cst.CSTNode, root: cst.CSTNode) -> int:
        return self.within(root)[node].start.line
