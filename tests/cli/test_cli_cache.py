"""The result cache never changes what a run says or writes: a cached run's stdout, stderr and exit
code are an uncached run's, byte for byte, in every mode; a changed file, changed options or a
corrupt cache make it process the file again; `--no-cache` neither reads nor writes it."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

import mwbmigrate.engine.transform as transform
from mwbmigrate.cli import app
from mwbmigrate.engine.cache import CACHE_DIR_ENV

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "fork"
MODES = {
    "dry-run": ["--dry-run"],
    "check": ["--check"],
    "json": ["--dry-run", "--format", "json"],
    "markdown": ["--check", "--format", "markdown"],
    "no-markers": ["--dry-run", "--no-markers"],
    "target-0.5.16": ["--dry-run", "--target-version", "0.5.16", "--no-contract-check"],
    "collapse-compat": ["--dry-run", "--collapse-compat"],
}
Outcome = tuple[int, str, str]


def _tree(root: Path) -> Path:
    shutil.copytree(EXAMPLES, root)
    return root


def _run(cache: Path, *args: str, stdin: str | None = None) -> Outcome:
    result = CliRunner().invoke(
        app,
        ["rewrite", *args, "--jobs", "1", "--no-progress"],
        input=stdin,
        env={CACHE_DIR_ENV: str(cache)},
        catch_exceptions=False,
    )
    return result.exit_code, result.stdout, result.stderr


def _entries(cache: Path) -> list[Path]:
    return sorted(cache.rglob("*.json")) if cache.exists() else []


@pytest.fixture
def no_transform(monkeypatch: pytest.MonkeyPatch):  # type: ignore[no-untyped-def]
    """Fails the test if any file is transformed (a warm run must answer from the cache alone)."""

    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError(f"transformed although cached: {args[1] if len(args) > 1 else args}")

    # The runner imports the transform where a file is transformed: patched there, it is what runs.
    return lambda: monkeypatch.setattr(transform, "transform_file", refuse)


def test_every_mode_answers_alike_with_and_without_the_cache(tmp_path: Path, no_transform) -> None:  # type: ignore[no-untyped-def]
    tree = _tree(tmp_path / "tree")
    cache = tmp_path / "cache"
    uncached = {mode: _run(cache, str(tree), *args, "--no-cache") for mode, args in MODES.items()}
    assert not _entries(cache), "--no-cache writes no entry"
    assert any(code == 1 for code, _, _ in uncached.values()), "the example tree must need changes"
    cold = {mode: _run(cache, str(tree), *args) for mode, args in MODES.items()}
    assert _entries(cache)
    no_transform()
    warm = {mode: _run(cache, str(tree), *args) for mode, args in MODES.items()}
    for mode in MODES:
        assert cold[mode] == uncached[mode], mode
        assert warm[mode] == uncached[mode], mode


def test_writing_from_a_warm_cache_writes_what_an_uncached_run_writes(tmp_path: Path) -> None:
    cached_tree, plain_tree = _tree(tmp_path / "a"), _tree(tmp_path / "b")
    cache = tmp_path / "cache"
    _run(cache, str(cached_tree), "--check")  # fills the cache
    written = _run(cache, str(cached_tree), "--allow-dirty")
    plain = _run(cache, str(plain_tree), "--allow-dirty", "--no-cache")
    assert written[0] == plain[0] == 0
    assert written[2].replace(str(cached_tree), "ROOT") == plain[2].replace(str(plain_tree), "ROOT")
    files = sorted(p.relative_to(plain_tree) for p in plain_tree.rglob("*.py"))
    assert files and all((cached_tree / f).read_bytes() == (plain_tree / f).read_bytes() for f in files)
    assert any((plain_tree / f).read_bytes() != (EXAMPLES / f).read_bytes() for f in files)


def test_a_changed_file_is_processed_again(tmp_path: Path) -> None:
    tree = _tree(tmp_path / "tree")
    cache = tmp_path / "cache"
    _run(cache, str(tree), "--dry-run")
    worker = tree / "my_fork" / "custom_worker.py"
    worker.write_text(
        worker.read_text() + "\n\ndef extra(model_worker_batch):\n    return model_worker_batch.seq_lens\n"
    )
    after = _run(cache, str(tree), "--dry-run")
    assert after == _run(cache, str(tree), "--dry-run", "--no-cache")
    assert "def extra(batch)" in after[1]


def test_changed_options_are_processed_again(tmp_path: Path) -> None:
    tree = _tree(tmp_path / "tree")
    cache = tmp_path / "cache"
    default = _run(cache, str(tree), "--dry-run")
    without_markers = _run(cache, str(tree), "--dry-run", "--no-markers")
    assert without_markers == _run(cache, str(tree), "--dry-run", "--no-markers", "--no-cache")
    assert "# mwbmigrate: MWB1" in default[1] and "# mwbmigrate: MWB1" not in without_markers[1]
    ignored = _run(cache, str(tree), "--dry-run", "--ignore", "MWB003")
    assert ignored == _run(cache, str(tree), "--dry-run", "--ignore", "MWB003", "--no-cache")


def test_a_corrupt_cache_is_ignored_and_repaired(tmp_path: Path) -> None:
    tree = _tree(tmp_path / "tree")
    cache = tmp_path / "cache"
    expected = _run(cache, str(tree), "--dry-run", "--no-cache")
    _run(cache, str(tree), "--dry-run")
    entries = _entries(cache)
    assert entries
    for number, entry in enumerate(entries):
        text = entry.read_text()
        entry.write_text(["", text[: len(text) // 2], "{}", text.replace("changed", "chang3d")][number % 4])
    assert _run(cache, str(tree), "--dry-run") == expected
    assert _run(cache, str(tree), "--dry-run") == expected


def test_stdin_answers_alike_with_and_without_the_cache(tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    module = (EXAMPLES / "my_fork" / "custom_worker.py").read_text()
    target = str(tmp_path / "pkg" / "custom_worker.py")
    uncached = _run(cache, "-", "--stdin-filename", target, "--no-cache", stdin=module)
    assert uncached[1] != module
    assert _run(cache, "-", "--stdin-filename", target, stdin=module) == uncached
    assert _run(cache, "-", "--stdin-filename", target, stdin=module) == uncached


def test_a_copy_of_the_tree_elsewhere_answers_from_the_same_entries(tmp_path: Path, no_transform) -> None:  # type: ignore[no-untyped-def]
    """Dry-run in one place, apply in a copy: the entries do not depend on where the tree sits."""
    here, there = _tree(tmp_path / "here" / "fork"), _tree(tmp_path / "elsewhere" / "deeper" / "fork")
    cache = tmp_path / "cache"
    uncached = _run(cache, str(there), "--dry-run", "--no-cache")
    _run(cache, str(here), "--dry-run")
    no_transform()
    assert _run(cache, str(there), "--dry-run") == uncached


def test_an_entry_inside_sglang_is_not_taken_for_a_file_outside_it(tmp_path: Path) -> None:
    """Where a module sits inside an `sglang` folder its relative imports are SGLang's: the key
    keeps that part of the location."""
    source = (EXAMPLES / "my_fork" / "custom_worker.py").read_bytes()
    inside, outside = tmp_path / "sglang" / "srt" / "w.py", tmp_path / "plain" / "srt" / "w.py"
    for path in (inside, outside):
        path.parent.mkdir(parents=True)
        path.write_bytes(source.replace(b"from sglang.srt.managers", b"from ..managers"))
    cache = tmp_path / "cache"
    inside_run, outside_run = (_run(cache, str(p.parent), "--dry-run", "--no-cache") for p in (inside, outside))
    assert inside_run[1].replace("sglang/", "plain/") != outside_run[1], "the two locations must rewrite differently"
    assert _run(cache, str(inside.parent), "--dry-run") == inside_run
    assert _run(cache, str(outside.parent), "--dry-run") == outside_run
