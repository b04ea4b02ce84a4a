"""The on-disk result cache: a file already processed with the same tool and the same options is not
processed again (as ruff and black do).

An entry is one file's `FileResult` for one pass, keyed by everything its result depends on:
- the tool: the package version, a hash of every source file of the mwbmigrate package (a code change
  invalidates every entry), LibCST's version and Python's (the parser and the validating `compile`);
- the file: its bytes' hash, its display path (relative to the tree's root: the paths reported) and
  what the rules read of where it sits (`ModuleLocation.sglang_context`: relative imports and the
  schedule batch module depend on it), never the absolute path, so a copy of the tree elsewhere
  (dry-run here, applied in a clone) finds the same entries; pass 2, which matches imports by
  path endings that can reach above the root, keys on the absolute path too;
- the options: every `TransformOptions` field, in canonical form (for pass 2 they carry the project's
  renamed signatures, the pass's other input), and the codemods run.
Pass 2's key includes pass 1's, so it also follows the file's bytes.

Entries live in `$MWBMIGRATE_CACHE_DIR`, else `$XDG_CACHE_HOME/mwbmigrate`, else `~/.cache/mwbmigrate`.
Each is written to a temporary file and renamed into place, so a reader sees a whole entry or none;
an entry that cannot be read or does not hold what its key says is ignored (and rewritten). A failed
file is never cached: why it failed may be the machine's (memory, permissions), not the file's.
The cache is a speed-up only: any error in it is swallowed and the file is processed.
"""

from __future__ import annotations

import dataclasses
import enum
import functools
import hashlib
import json
import os
import pickle
import secrets
import sys
from importlib import metadata
from pathlib import Path
from typing import Any, TypeVar

from mwbmigrate import __version__
from mwbmigrate.result import FileResult, FileStatus, ReviewItem

CACHE_DIR_ENV = "MWBMIGRATE_CACHE_DIR"
FORMAT = 2  # the entries' layout; bump it when FileResult's stored fields change
_PACKAGE = Path(__file__).resolve().parents[1]
_CACHEABLE = (FileStatus.SKIPPED, FileStatus.UNCHANGED, FileStatus.CHANGED)
_Stored = TypeVar("_Stored")


def default_directory() -> Path:
    configured = os.environ.get(CACHE_DIR_ENV)
    if configured:
        return Path(configured)
    base = os.environ.get("XDG_CACHE_HOME")
    return (Path(base) if base else Path.home() / ".cache") / "mwbmigrate"


@functools.lru_cache(maxsize=1)
def tool_fingerprint() -> str:
    """The running tool: versions, and a hash of the package's source (edits without a version bump)."""
    digest = hashlib.sha256()
    try:
        libcst_version = metadata.version("libcst")
    except metadata.PackageNotFoundError:
        libcst_version = "?"
    digest.update(f"{__version__}\0{libcst_version}\0{sys.version}\0{FORMAT}\0".encode())
    for source in sorted(_PACKAGE.rglob("*.py")):
        digest.update(source.relative_to(_PACKAGE).as_posix().encode() + b"\0")
        digest.update(hashlib.sha256(source.read_bytes()).digest())
    return digest.hexdigest()


def canonical(value: object) -> Any:
    """A JSON-able form of `value` that does not depend on set order or hash seeds: dataclasses by
    their fields, sets sorted, classes by qualified name."""
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if isinstance(value, enum.Enum):
        return canonical(value.value)
    if isinstance(value, bytes):
        return hashlib.sha256(value).hexdigest()
    if isinstance(value, type):
        return f"{value.__module__}.{value.__qualname__}"
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        fields = {f.name: canonical(getattr(value, f.name)) for f in dataclasses.fields(value)}
        return {"__class__": canonical(type(value)), **fields}
    if isinstance(value, (set, frozenset)):
        return sorted((canonical(v) for v in value), key=lambda v: json.dumps(v, sort_keys=True))
    if isinstance(value, (list, tuple)):
        return [canonical(v) for v in value]
    if isinstance(value, dict):
        return sorted(
            ([canonical(k), canonical(v)] for k, v in value.items()), key=lambda kv: json.dumps(kv, sort_keys=True)
        )
    return repr(value)


def _encode(result: FileResult) -> dict[str, Any]:
    return {
        "status": result.status.value,
        "original": result.original,
        "rewritten": result.rewritten,
        "encoding": result.encoding,
        "has_bom": result.has_bom,
        "review_items": [
            [i.code, i.path, i.line, i.column, i.message, i.suggestion, i.kind] for i in result.review_items
        ],
        "applied": list(result.applied),
        "renamed_signatures": [list(s) for s in result.renamed_signatures],
        "parsed": result.parsed,
        "note": result.note,
    }


def _optional_str(value: object) -> str | None:
    if value is not None and not isinstance(value, str):
        raise TypeError(value)
    return value


def _str(value: object) -> str:
    if not isinstance(value, str):
        raise TypeError(value)
    return value


def _int(value: object) -> int:
    if not isinstance(value, int) or isinstance(value, bool):
        raise TypeError(value)
    return value


def _bool(value: object) -> bool:
    if not isinstance(value, bool):
        raise TypeError(value)
    return value


def _decode(entry: dict[str, Any], path: str, display_path: str) -> FileResult:
    """The stored result, every field checked for its type (a corrupt entry raises)."""
    items = tuple(
        ReviewItem(_str(code), _str(item_path), _int(line), _int(column), _str(message), _str(suggestion), _str(kind))
        for code, item_path, line, column, message, suggestion, kind in entry["review_items"]
    )
    signatures = tuple((_str(a), _str(b), _str(c)) for a, b, c in entry["renamed_signatures"])
    return FileResult(
        path=path,
        display_path=display_path,
        status=FileStatus(entry["status"]),
        original=_optional_str(entry["original"]),
        rewritten=_optional_str(entry["rewritten"]),
        encoding=_str(entry["encoding"]),
        has_bom=_bool(entry["has_bom"]),
        review_items=items,
        applied=tuple(_str(code) for code in entry["applied"]),
        renamed_signatures=signatures,
        parsed=_bool(entry["parsed"]),
        note=_optional_str(entry["note"]),
    )


class ResultCache:
    """Per-file results on disk, keyed by `key(...)`; see the module's docstring."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory
        self.hits = 0
        self.misses = 0

    @classmethod
    def default(cls) -> ResultCache:
        return cls(default_directory())

    def key(self, *parts: object) -> str:
        text = json.dumps([tool_fingerprint(), canonical(parts)], sort_keys=True, separators=(",", ":"))
        return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()

    def _entry_path(self, key: str) -> Path:
        return self.directory / f"v{FORMAT}" / key[:2] / f"{key}.json"

    def load(self, key: str, path: str, display_path: str) -> FileResult | None:
        """The result stored under `key` for the file at `path`, or None (absent, unreadable, corrupt)."""
        try:
            with open(self._entry_path(key), encoding="utf-8") as handle:
                entry = json.load(handle)
            if entry.get("key") != key or entry.get("display_path") != display_path:
                raise ValueError("another entry")
            result = _decode(entry["result"], path, display_path)
            if result.status not in _CACHEABLE:
                raise ValueError("not a cacheable status")
        except Exception:  # noqa: BLE001 - a missing or corrupt entry is a miss, never an error
            self.misses += 1
            return None
        self.hits += 1
        return result

    def store(self, key: str, result: FileResult) -> None:
        """Keep `result` under `key` (not a failure); a cache that cannot be written is left alone."""
        if result.status not in _CACHEABLE:
            return
        entry = {"key": key, "display_path": result.display_path, "result": _encode(result)}
        self._write(self._entry_path(key), json.dumps(entry, ensure_ascii=True).encode("ascii"))

    def _object_path(self, key: str) -> Path:
        return self.directory / f"v{FORMAT}" / key[:2] / f"{key}.pickle"

    def load_object(self, key: str, kind: type[_Stored]) -> _Stored | None:
        """The `kind` stored under `key` by `store_object` (the engine's whole-tree facts), or None.
        Pickled, as `.pyc` files are: the cache folder is the user's own, written only by this tool."""
        try:
            with open(self._object_path(key), "rb") as handle:
                stored_key, found = pickle.load(handle)
            if stored_key != key or not isinstance(found, kind):
                raise ValueError("another entry")
        except Exception:  # noqa: BLE001 - a missing or corrupt entry is a miss, never an error
            return None
        return found

    def store_object(self, key: str, value: object) -> None:
        self._write(self._object_path(key), pickle.dumps((key, value), protocol=pickle.HIGHEST_PROTOCOL))

    def _write(self, target: Path, data: bytes) -> None:
        # Its own temporary name and a rename: no fsync, as an entry lost in a crash is only a miss,
        # and none of the writer's calls (engine/writer.py), so a cache write is never taken for one.
        temporary = target.with_name(f".{target.name}.{os.getpid()}.{secrets.token_hex(4)}.tmp")
        try:
            target.parent.mkdir(parents=True, exist_ok=True)
            try:
                with open(temporary, "xb") as handle:
                    handle.write(data)
                os.rename(temporary, target)
            finally:
                temporary.unlink(missing_ok=True)
        except OSError:
            return
