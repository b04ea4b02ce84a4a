"""`[tool.mwbmigrate]` in the target's pyproject.toml; command-line flags override it.

[tool.mwbmigrate]
include = ["python/**"]
exclude = ["tests/fixtures/**"]
jobs = 4
select = []          # codemods (MWB0xx or name) / review codes (MWB1xx) to run only
ignore = ["docstrings"]
markers = true
target-version = "0.5.13"   # or "0.5.16": overrides as keyword arguments (see README)
runtime = "import"   # or "vendor": copy the runtime helpers into the tree (see README)
format-changed = "none"   # or "auto", "black", "ruff": format what the rewrite changed (see README)
"""

from __future__ import annotations

import sys
from dataclasses import dataclass, field
from pathlib import Path

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on 3.10 only
    import tomli as tomllib

from mwbmigrate.analysis.target_versions import TARGET_VERSIONS
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
    runtime: str | None = None  # "import" or "vendor"; None: not configured
    target_version: str | None = None  # one of TARGET_VERSIONS; None: not configured
    format_changed: str | None = None  # one of engine.formatting.CHOICES; None: not configured


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
    markers = table.get("markers", True)
    if not isinstance(markers, bool):
        raise ConfigError(f"{pyproject}: [tool.mwbmigrate] markers must be true or false")
    runtime = table.get("runtime")
    if runtime is not None and runtime not in RUNTIME_MODES:
        raise ConfigError(f'{pyproject}: [tool.mwbmigrate] runtime must be "import" or "vendor"')
    target_version = table.get("target-version")
    if target_version is not None and target_version not in TARGET_VERSIONS:
        choices = ", ".join(f'"{v}"' for v in TARGET_VERSIONS)
        raise ConfigError(f"{pyproject}: [tool.mwbmigrate] target-version must be one of {choices}")
    format_changed = table.get("format-changed")
    if format_changed is not None and format_changed not in FORMAT_CHOICES:
        choices = ", ".join(f'"{c}"' for c in FORMAT_CHOICES)
        raise ConfigError(f"{pyproject}: [tool.mwbmigrate] format-changed must be one of {choices}")
    return FileConfig(
        source=pyproject,
        include=_string_list(table, "include", pyproject),
        exclude=_string_list(table, "exclude", pyproject),
        jobs=jobs,
        select=_string_list(table, "select", pyproject),
        ignore=_string_list(table, "ignore", pyproject),
        markers=markers,
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
