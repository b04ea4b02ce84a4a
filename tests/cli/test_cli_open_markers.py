"""`--check` on a migrated tree counts the markers left in the code as open review items."""

from __future__ import annotations

import json


def test_check_on_a_migrated_tree_counts_the_markers_left(kit) -> None:
    tree = kit.repo()
    first = kit.invoke("rewrite", tree, "--no-cache", "--no-contract-check", "--format", "json")
    assert first.exit_code == 0, first.stderr
    kit.commit(tree, "migrated")
    left = sum(path.read_text().count("# mwbmigrate: MWB") for path in tree.rglob("*.py"))
    assert left > 0
    check = kit.invoke("rewrite", tree, "--check", "--no-cache", "--no-contract-check", "--format", "json")
    assert check.exit_code == 0, check.stderr  # nothing would change: the markers do not fail --check
    report = json.loads(check.stdout)
    assert report["summary"]["review_items"] == left
