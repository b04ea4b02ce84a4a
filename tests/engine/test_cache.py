"""The result cache (mwbmigrate.engine.cache): keys follow everything a result depends on, entries
round-trip exactly, and a missing, foreign or corrupt entry is a miss, never an error."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from mwbmigrate.analysis.signatures import ProjectSignatures, RenamedSignature
from mwbmigrate.codemods import CODEMODS, SECOND_PASS_CODEMODS
from mwbmigrate.engine.cache import CACHE_DIR_ENV, ResultCache, canonical, default_directory
from mwbmigrate.engine.transform import TransformOptions
from mwbmigrate.result import FileResult, FileStatus, ReviewItem

CHANGED = FileResult(
    path="/tree/pkg/mod.py",
    display_path="pkg/mod.py",
    status=FileStatus.CHANGED,
    original="x = 1\r\n",
    rewritten="x = 2  # mwbmigrate: MWB101 why \u00e9\r\n",
    encoding="latin-1",
    has_bom=True,
    review_items=(ReviewItem("MWB101", "pkg/mod.py", 1, 1, "why \u00e9", "do this"),),
    applied=("MWB001", "MWB020"),
    renamed_signatures=(("Worker.forward", "model_worker_batch", "batch"),),
    parsed=True,
)


def _key(
    cache: ResultCache,
    data: bytes = b"x = 1\n",
    options: TransformOptions | None = None,
    path: str = "/tree/pkg/mod.py",
    display: str = "pkg/mod.py",
) -> str:
    return cache.key("pass-1", path, display, data, options or TransformOptions(), CODEMODS)


def test_a_result_round_trips_exactly(tmp_path: Path) -> None:
    cache = ResultCache(tmp_path)
    key = _key(cache)
    cache.store(key, CHANGED)
    assert cache.load(key, CHANGED.path, CHANGED.display_path) == CHANGED


@pytest.mark.parametrize("status", [FileStatus.UNCHANGED, FileStatus.SKIPPED])
def test_other_statuses_round_trip(tmp_path: Path, status: FileStatus) -> None:
    cache = ResultCache(tmp_path)
    result = FileResult("/tree/a.py", "a.py", status, parsed=status is FileStatus.UNCHANGED)
    cache.store("0" * 64, result)
    assert cache.load("0" * 64, "/tree/a.py", "a.py") == result


def test_a_failure_is_never_stored(tmp_path: Path) -> None:
    cache = ResultCache(tmp_path)
    cache.store("1" * 64, FileResult("/tree/a.py", "a.py", FileStatus.FAILED, error="permission denied"))
    assert cache.load("1" * 64, "/tree/a.py", "a.py") is None
    assert not list(tmp_path.rglob("*.json"))


def test_keys_follow_bytes_path_options_and_codemods(tmp_path: Path) -> None:
    cache = ResultCache(tmp_path)
    base = _key(cache)
    assert _key(cache) == base, "a key is a function of its inputs"
    signatures = ProjectSignatures((RenamedSignature(("pkg", "mod"), "f", "model_worker_batch", "batch"),))
    others = {
        "bytes": _key(cache, data=b"x = 2\n"),
        "path": _key(cache, path="/other/pkg/mod.py"),
        "display path": _key(cache, display="mod.py"),
        "markers": _key(cache, options=TransformOptions(markers=False)),
        "target version": _key(cache, options=TransformOptions(target_version="0.5.16")),
        "disabled codemods": _key(cache, options=TransformOptions(disabled=frozenset({"MWB003"}))),
        "ignored reviews": _key(cache, options=TransformOptions(ignored_reviews=frozenset({"MWB101"}))),
        "collapse compat": _key(cache, options=TransformOptions(collapse_compat=True)),
        "runtime module": _key(cache, options=TransformOptions(runtime_module="pkg._mwbmigrate_runtime")),
        "request mirror": _key(cache, options=TransformOptions(request_mirror=True)),
        "project signatures": _key(cache, options=TransformOptions(project_signatures=signatures)),
        "codemods": cache.key(
            "pass-1", "/tree/pkg/mod.py", "pkg/mod.py", b"x = 1\n", TransformOptions(), SECOND_PASS_CODEMODS
        ),
        "pass": cache.key("pass-2", "/tree/pkg/mod.py", "pkg/mod.py", b"x = 1\n", TransformOptions(), CODEMODS),
    }
    assert base not in others.values()
    assert len(set(others.values())) == len(others)


def test_set_order_does_not_change_a_key() -> None:
    """Frozensets of strings iterate in a hash-seed order, which differs between processes."""
    codes = [f"MWB1{n:02d}" for n in range(40)]
    script = (
        "import json, sys; from mwbmigrate.engine.cache import canonical; "
        "from mwbmigrate.engine.transform import TransformOptions; "
        f"print(json.dumps(canonical(TransformOptions(ignored_reviews=frozenset({codes!r})))))"
    )
    outputs = {
        subprocess.run(
            [sys.executable, "-c", script],
            capture_output=True,
            text=True,
            check=True,
            env={"PYTHONHASHSEED": str(seed)},
        ).stdout
        for seed in (1, 2, 3)
    }
    assert len(outputs) == 1
    assert json.loads(outputs.pop()) == canonical(TransformOptions(ignored_reviews=frozenset(codes)))


@pytest.mark.parametrize(
    "corrupt",
    [
        lambda text: "",
        lambda text: text[: len(text) // 2],
        lambda text: "\x00\xff garbage",
        lambda text: text.replace('"changed"', '"exploded"'),
        lambda text: text.replace('"parsed": true', '"parsed": "yes"'),
        lambda text: json.dumps({"key": "another", "result": {}}),
    ],
    ids=["empty", "truncated", "garbage", "bad-status", "bad-type", "other-key"],
)
def test_a_corrupt_entry_is_a_miss(tmp_path: Path, corrupt) -> None:  # type: ignore[no-untyped-def]
    cache = ResultCache(tmp_path)
    key = _key(cache)
    cache.store(key, CHANGED)
    (entry,) = tmp_path.rglob(f"{key}.json")
    entry.write_text(corrupt(entry.read_text()), encoding="utf-8", errors="surrogateescape")
    assert cache.load(key, CHANGED.path, CHANGED.display_path) is None
    cache.store(key, CHANGED)  # and the next run rewrites it whole
    assert cache.load(key, CHANGED.path, CHANGED.display_path) == CHANGED


def test_an_entry_for_another_display_path_is_a_miss(tmp_path: Path) -> None:
    cache = ResultCache(tmp_path)
    cache.store("2" * 64, CHANGED)
    assert cache.load("2" * 64, CHANGED.path, "elsewhere.py") is None


def test_an_unwritable_cache_is_left_alone(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    cache = ResultCache(blocker / "cache")
    cache.store(_key(cache), CHANGED)  # no exception
    assert cache.load(_key(cache), CHANGED.path, CHANGED.display_path) is None


def test_writes_leave_no_temporary_file(tmp_path: Path) -> None:
    cache = ResultCache(tmp_path)
    for n in range(5):
        cache.store(_key(cache, data=bytes([n])), CHANGED)
    names = [p.name for p in tmp_path.rglob("*") if p.is_file()]
    assert len(names) == 5 and all(name.endswith(".json") and not name.startswith(".") for name in names)


def test_where_the_cache_lives(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv(CACHE_DIR_ENV, str(tmp_path / "mine"))
    assert default_directory() == tmp_path / "mine"
    monkeypatch.delenv(CACHE_DIR_ENV)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert default_directory() == tmp_path / "xdg" / "mwbmigrate"
    monkeypatch.delenv("XDG_CACHE_HOME")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert default_directory() == tmp_path / "home" / ".cache" / "mwbmigrate"
