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


MULTI_LINE = b"""from sglang.srt.managers.schedule_batch import ModelWorkerBatch


def lens(model_worker_batch: ModelWorkerBatch):
    total = sum(
        model_worker_batch.extend_seq_lens,
    )
    return total
"""


def test_an_item_on_a_multi_line_statement_is_at_its_first_line(kit) -> None:
    """Without markers nothing moves the statement: it starts on line 5 and closes on line 7."""
    tree = kit.tree(files={"my_fork/lens.py": MULTI_LINE})
    result = kit.invoke(
        "rewrite",
        tree / "my_fork" / "lens.py",
        "--dry-run",
        "--no-markers",
        "--no-cache",
        "--no-contract-check",
        "--format",
        "json",
    )
    assert result.exit_code == 0, result.stderr
    (entry,) = json.loads(result.stdout)["files"]
    assert [(i["code"], i["line"], i["column"]) for i in entry["review_items"]] == [("MWB113", 4, 1), ("MWB105", 5, 5)]
