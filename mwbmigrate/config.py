"""`[tool.mwbmigrate]` in the target's pyproject.toml; command-line flags override it.

[tool.mwbmigrate]
include = ["python/**"]
exclude = ["tests/fixtures/**"]
jobs = 4
select = []          # codemods (MWB0xx or name) / review codes (MWB1xx) to run only
ignore = ["docstrings"]
markers = true       # hazards only; "all": notes too; false: none
target-version = "0.5.13"   # any release from 0.5.13 to 0.5.23, or "latest" (see README, "Targets")
runtime = "import"   # or "vendor": copy the runtime helpers into the tree (see README)
format-changed = "none"   # or "auto", "black", "ruff": format what the rewrite changed (see README)
live-batch = false   # true: read the live batch at every snapshot, marked where unproven (see README)
clear-emptied-batches = false   # true: filter_batch to empty also clears the request-pool metadata
"""

from __future__ import annotations

import configparser
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on 3.10 only
    import tomli as tomllib

from mwbmigrate.analysis.target_versions import resolve_target
from mwbmigrate.engine.discovery import find_git_root
from mwbmigrate.engine.formatting import CHOICES as FORMAT_CHOICES

RUNTIME_MODES = ("import", "vendor")
KNOWN_KEYS = {
    "include",
    "exclude",
    "jobs",
    "select",
    "ignore",
    "markers",
    "runtime",
    "target-version",
    "format-changed",
    "live-batch",
    "clear-emptied-batches",
}


# `markers` -> (write markers, write notes too)
MARKER_VALUES: dict[object, tuple[bool, bool]] = {
    True: (True, False),
    "hazards": (True, False),
    "all": (True, True),
    False: (False, False),
    "none": (False, False),
}


class ConfigError(Exception):
    """The configuration table is malformed; the message says where."""


@dataclass(frozen=True)
class FileConfig:
    source: Path | None = None
    include: list[str] = field(default_factory=list)
    exclude: list[str] = field(default_factory=list)
    jobs: int | None = None
    select: list[str] = field(default_factory=list)
    ignore: list[str] = field(default_factory=list)
    markers: bool = True
    note_markers: bool = False  # `markers = "all"`: notes are written into the code too
    runtime: str | None = None  # "import" or "vendor"; None: not configured
    target_version: str | None = None  # a release of TARGET_VERSIONS (`latest` resolved); None: not configured
    format_changed: str | None = None  # one of engine.formatting.CHOICES; None: not configured
    live_batch: bool = False  # see TransformOptions.live_batch
    clear_emptied_batches: bool = False  # see TransformOptions.clear_emptied_batches


def _string_list(table: dict[str, object], key: str, source: Path) -> list[str]:
    value = table.get(key, [])
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        raise ConfigError(f"{source}: [tool.mwbmigrate] {key} must be a list of strings")
    return value


def find_pyproject(paths: list[Path]) -> Path | None:
    """The pyproject.toml at the repository root holding the first path, else beside it."""
    if not paths:
        return None
    start = Path(paths[0]).resolve()
    start = start if start.is_dir() else start.parent
    root = find_git_root(start)
    for candidate in ([root] if root else []) + [start, *start.parents]:
        pyproject = candidate / "pyproject.toml"
        if pyproject.is_file():
            return pyproject
        if root is not None and candidate == root:
            break
    return None


def load_config(paths: list[Path]) -> FileConfig:
    pyproject = find_pyproject(paths)
    if pyproject is None:
        return FileConfig()
    try:
        document = tomllib.loads(pyproject.read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError, UnicodeDecodeError) as error:
        raise ConfigError(f"{pyproject}: cannot read ({error})") from None
    table = document.get("tool", {}).get("mwbmigrate")
    if table is None:
        return FileConfig()
    if not isinstance(table, dict):
        raise ConfigError(f"{pyproject}: [tool.mwbmigrate] must be a table")
    unknown = set(table) - KNOWN_KEYS
    if unknown:
        raise ConfigError(f"{pyproject}: unknown [tool.mwbmigrate] keys: {', '.join(sorted(unknown))}")
    jobs = table.get("jobs")
    if jobs is not None and (not isinstance(jobs, int) or jobs < 1):
        raise ConfigError(f"{pyproject}: [tool.mwbmigrate] jobs must be a positive integer")
    markers_value = table.get("markers", True)
    if markers_value not in MARKER_VALUES:
        raise ConfigError(f'{pyproject}: [tool.mwbmigrate] markers must be true, false, "hazards", "all" or "none"')
    markers, note_markers = MARKER_VALUES[markers_value]
    runtime = table.get("runtime")
    if runtime is not None and runtime not in RUNTIME_MODES:
        raise ConfigError(f'{pyproject}: [tool.mwbmigrate] runtime must be "import" or "vendor"')
    target_version = table.get("target-version")
    if target_version is not None:
        if not isinstance(target_version, str):
            raise ConfigError(f'{pyproject}: [tool.mwbmigrate] target-version must be a string, such as "0.5.16"')
        try:
            target_version = resolve_target(target_version)
        except ValueError as error:
            raise ConfigError(f"{pyproject}: [tool.mwbmigrate] target-version: {error}") from error
    format_changed = table.get("format-changed")
    if format_changed is not None and format_changed not in FORMAT_CHOICES:
        choices = ", ".join(f'"{c}"' for c in FORMAT_CHOICES)
        raise ConfigError(f"{pyproject}: [tool.mwbmigrate] format-changed must be one of {choices}")
    live_batch = table.get("live-batch", False)
    if not isinstance(live_batch, bool):
        raise ConfigError(f"{pyproject}: [tool.mwbmigrate] live-batch must be true or false")
    clear_emptied = table.get("clear-emptied-batches", False)
    if not isinstance(clear_emptied, bool):
        raise ConfigError(f"{pyproject}: [tool.mwbmigrate] clear-emptied-batches must be true or false")
    return FileConfig(
        source=pyproject,
        live_batch=live_batch,
        clear_emptied_batches=clear_emptied,
        include=_string_list(table, "include", pyproject),
        exclude=_string_list(table, "exclude", pyproject),
        jobs=jobs,
        select=_string_list(table, "select", pyproject),
        ignore=_string_list(table, "ignore", pyproject),
        markers=markers,
        note_markers=note_markers,
        runtime=runtime,
        target_version=target_version,
        format_changed=format_changed,
    )


def project_roots(paths: list[Path]) -> list[Path]:
    """Where the repository holding the first path configures its tools, nearest first: the folder of
    its pyproject.toml (as `load_config` finds it), then its git work tree (a monorepo's
    `.pre-commit-config.yaml`), else the path's own folder."""
    start = Path(paths[0]).resolve() if paths else Path.cwd()
    start = start if start.is_dir() else start.parent
    pyproject = find_pyproject(paths)
    candidates = [pyproject.parent if pyproject is not None else None, find_git_root(start)]
    roots = list(dict.fromkeys(root for root in candidates if root is not None))
    return roots or [start]


DEFAULT_LINE_LENGTH = 88  # black's and ruff's default, and what flake8 users mostly configure


def project_line_length(paths: list[Path]) -> int:
    """The line length the project's formatter or linter is configured with (ruff's `line-length`,
    black's `line-length`, flake8's `max-line-length`), from the first configuration file that sets
    one, looking from the repository root holding the first path, then from that path upwards; 88
    when none does. A file that cannot be read or parsed is passed over."""
    if not paths:
        return DEFAULT_LINE_LENGTH
    start = Path(paths[0]).resolve()
    start = start if start.is_dir() else start.parent
    root = find_git_root(start)
    for folder in ([root] if root else []) + [start, *start.parents]:
        found = _configured_line_length(folder)
        if found is not None:
            return found
        if root is not None and folder == root:
            break
    return DEFAULT_LINE_LENGTH


def _configured_line_length(folder: Path) -> int | None:
    for name in ("ruff.toml", ".ruff.toml"):
        document = _toml(folder / name)
        if document is not None and isinstance(document.get("line-length"), int):
            return int(document["line-length"])
    document = _toml(folder / "pyproject.toml")
    if document is not None:
        tools = document.get("tool", {})
        for tool in ("ruff", "black"):
            value = tools.get(tool, {}).get("line-length") if isinstance(tools, dict) else None
            if isinstance(value, int):
                return value
    for name in ("setup.cfg", "tox.ini", ".flake8"):
        value = _flake8_max_line_length(folder / name)
        if value is not None:
            return value
    return None


def _toml(path: Path) -> dict[str, Any] | None:
    if not path.is_file():
        return None
    try:
        document: dict[str, Any] = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError, UnicodeDecodeError):
        return None
    return document


def _flake8_max_line_length(path: Path) -> int | None:
    if not path.is_file():
        return None
    parser = configparser.ConfigParser(interpolation=None)
    try:
        parser.read_string(path.read_text(encoding="utf-8"))
        value = parser.get("flake8", "max-line-length", fallback=None) or parser.get(
            "flake8", "max_line_length", fallback=None
        )
    except (OSError, configparser.Error, UnicodeDecodeError):
        return None
    return int(value) if value is not None and value.strip().isdigit() else None
