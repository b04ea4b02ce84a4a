"""The target tree imports on this machine (CPU, stubs) -- only collected when a tree is given.

A folder without an ``sglang/`` package (a plugin, an out-of-tree model) is not an SGLang core:
only the runtime is tested then, and this check passes. A tree that holds SGLang's core
(``sglang/srt/managers/schedule_batch.py``) must import, every module the suite uses included:
otherwise its own implementations would silently go untested.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:  # annotations only: the fixtures hand these in
    from mwbmigrate.verify.suite._impls import TreeStatus


def test_tree_imports_with_stubs(tree_status: TreeStatus | None) -> None:
    assert tree_status is not None
    if not tree_status.is_core:
        assert not tree_status.importable or tree_status.root is not None
        return
    assert tree_status.importable, f"cannot import {tree_status.root}: {tree_status.reason}"
    assert not tree_status.problems, f"modules the suite needs failed to import: {tree_status.problems}"
