from __future__ import annotations

import shutil

import pytest
from typer.testing import CliRunner

from corpus_trees import python_files
from mwbmigrate.cli import app
from sglang_corpus import NEW_VERSION, OLD_VERSION, CorpusUnavailable, sglang_tree


@pytest.fixture(scope="session")
def trees(tmp_path_factory):
    """0.5.12.post1 copied and rewritten in place once; both versions' files for comparison."""
    try:
        old_root, new_root = sglang_tree(OLD_VERSION), sglang_tree(NEW_VERSION)
    except CorpusUnavailable as error:
        pytest.fail(f"corpus download failed: {error}")
    work = tmp_path_factory.mktemp("corpus") / "tree" / "sglang"
    shutil.copytree(old_root / "sglang", work)
    before = python_files(work)
    result = CliRunner().invoke(app, ["rewrite", str(work), "--no-progress", "--jobs", "2", "--format", "json"])
    after = python_files(work)
    return {
        "old": before, "new": after, "upstream": python_files(new_root / "sglang"),
        "result": result, "work": work, "root": work.parent,
    }
