"""The fork-sized tree of `benchmarks/bench_rewrite.py --fork-tree` (`benchmarks/fork_tree.py`).

Its figures only mean something if the tree is what the header says: valid Python, deterministic
for a seed, exactly the asked number of files naming the old API (the plugins) and no filler that
the engine's byte prefilter would take, and plugins the tool migrates without a failure.
"""

from __future__ import annotations

import ast
import hashlib
import json
import subprocess
import sys
from pathlib import Path

import pytest

from mwbmigrate.rules import byte_candidate

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "benchmarks"))

from fork_tree import (  # noqa: E402
    AFFECTED,
    FILES,
    LARGEST_LINES,
    LINE_SLACK,
    OLD_API,
    build_fork_tree,
    count_tree,
    generate_files,
)


def _digest(root: Path) -> str:
    digest = hashlib.sha256()
    for path in sorted(root.rglob("*.py")):
        digest.update(str(path.relative_to(root)).encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()


def test_same_seed_same_bytes(tmp_path: Path) -> None:
    for name, seed in (("a", 7), ("b", 7), ("c", 8)):
        generate_files(tmp_path / name, 80, 9, seed=seed, largest_plugin_lines=400)
    assert _digest(tmp_path / "a") == _digest(tmp_path / "b")
    assert _digest(tmp_path / "a") != _digest(tmp_path / "c")


def test_counts_syntax_and_prefilter(tmp_path: Path) -> None:
    written = generate_files(tmp_path, 300, 21, seed=1, largest_plugin_lines=1200)
    assert len(written) == len(set(written)) == 300
    stats = count_tree(tmp_path)
    assert (stats.files, stats.affected) == (300, 21)
    assert abs(stats.largest_affected_lines - 1200) <= LINE_SLACK
    kinds = {path.relative_to(tmp_path).parts[0] for path in written}
    assert kinds == {"python", "test", "benchmark", "scripts"}
    for path in written:
        data = path.read_bytes()
        ast.parse(data, filename=str(path))
        # The plugins are the only files the engine reads further than its byte prefilter.
        assert byte_candidate(data) == bool(OLD_API.search(data)), path


def test_too_many_affected_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ValueError):
        generate_files(tmp_path, 10, 8)


def test_the_plugins_migrate_without_failure(tmp_path: Path) -> None:
    generate_files(tmp_path / "fork", 40, 14, seed=2, largest_plugin_lines=250)
    completed = subprocess.run(
        [sys.executable, "-m", "mwbmigrate", "rewrite", str(tmp_path / "fork"), "--dry-run", "--no-cache"]
        + ["--no-progress", "--format", "json", "--jobs", "1"],
        capture_output=True,
        check=False,
    )
    assert completed.returncode == 0, completed.stderr.decode()
    summary = json.loads(completed.stdout)["summary"]
    assert (summary["scanned"], summary["changed"], summary["failed"]) == (40, 14, 0)


@pytest.mark.corpus
def test_the_fork_sized_tree(tmp_path: Path) -> None:
    from sglang_corpus import CorpusUnavailable

    try:
        stats = build_fork_tree(tmp_path / "fork", seed=0, git=False)
    except CorpusUnavailable as error:
        pytest.fail(f"wheel download failed: {error}")
    assert (stats.files, stats.affected) == (FILES, AFFECTED)
    assert abs(stats.largest_lines - LARGEST_LINES) <= LINE_SLACK
    assert stats.sglang_affected < AFFECTED < stats.files - stats.sglang_files
    assert (tmp_path / "fork" / "python" / "sglang" / "srt" / "managers" / "scheduler.py").is_file()
