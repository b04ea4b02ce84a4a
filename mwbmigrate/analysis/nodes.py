"""Sets of LibCST nodes by identity."""

from __future__ import annotations

from collections.abc import Iterator

import libcst as cst


class NodeSet:
    """Nodes by identity. A set of `id()`s alone would match a new node that reuses the id of one
    already discarded; keeping the node keeps its id taken."""

    def __init__(self) -> None:
        self._nodes: dict[int, cst.CSTNode] = {}

    def add(self, node: cst.CSTNode) -> None:
        self._nodes[id(node)] = node

    def __contains__(self, node: object) -> bool:
        return self._nodes.get(id(node)) is node

    def __iter__(self) -> Iterator[cst.CSTNode]:
        return iter(self._nodes.values())

    def __bool__(self) -> bool:
        return bool(self._nodes)
