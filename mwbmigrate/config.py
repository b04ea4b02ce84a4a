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
format-changed = "auto"   # or "none", "black", "ruff": format what the rewrite changed (see README)
live-batch = false   # true: read the live batch at every snapshot, marked where unproven (see README)
clear-emptied-batches = false   # true: filter_batch to empty also clears the request-pool metadata
"""

from __future__ import annotations

import configparser
import re
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
from mwbmigrate.engine.formatting import CHOICES as FORMAT_CHOICES, configured_formatter
from mwbmigrate.engine.import_sorting import ImportSorting

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
    for folder in _configuration_folders(paths):
        found = _configured_line_length(folder)
        if found is not None:
            return found
    return DEFAULT_LINE_LENGTH


def configured_line_length(paths: list[Path]) -> int | None:
    """The line length statements the rewrite inserts are wrapped to: `project_line_length`'s, when
    the tree configures one or a formatter (black's and ruff's default, 88, without one); None when
    it configures neither, and inserted statements keep their one-line form."""
    for folder in _configuration_folders(paths):
        found = _configured_line_length(folder)
        if found is not None:
            return found
        if configured_formatter(folder) is not None:
            return DEFAULT_LINE_LENGTH
    return None


def _configuration_folders(paths: list[Path]) -> list[Path]:
    """The repository root holding the first path, then that path's folder and its parents up to
    the root (all of them outside a repository)."""
    if not paths:
        return []
    start = Path(paths[0]).resolve()
    start = start if start.is_dir() else start.parent
    root = find_git_root(start)
    folders = [root] if root else []
    for folder in [start, *start.parents]:
        folders.append(folder)
        if root is not None and folder == root:
            break
    return list(dict.fromkeys(folders))


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
    hooks = _pre_commit_hooks(folder)
    argument = _LINE_LENGTH_ARGUMENT.search(hooks)  # black's or ruff's hook with `--line-length N`
    if argument is not None:
        return int(argument.group(1))
    for name in ("setup.cfg", "tox.ini", ".flake8"):
        value = _flake8_max_line_length(folder / name)
        if value is not None:
            return value
    isort = _isort_settings(folder)
    if isort is not None and str(isort.get("line_length", "")).strip().isdigit():
        return int(str(isort["line_length"]).strip())
    return None


# `--line-length=88`, `-l 88`, `"--line-length", "88"`: a hook's arguments, in either YAML list form.
_LINE_LENGTH_ARGUMENT = re.compile(r"""(?:--line-length|--max-line-length|(?<![\w-])-l)["']?\s*[=,\s]\s*["']?(\d+)""")


def _pre_commit_hooks(folder: Path) -> str:
    """The text of `folder`'s `.pre-commit-config.yaml` (empty when there is none): searched, not
    parsed, as the core has no YAML parser."""
    path = folder / ".pre-commit-config.yaml"
    try:
        return path.read_text(encoding="utf-8") if path.is_file() else ""
    except (OSError, UnicodeDecodeError):
        return ""


# -- the import sorter ---------------------------------------------------------------------------

# The isort settings placing an import needs; a sorter configured beyond them (one name a line, a
# profile other than black's) is not modelled, and added imports keep LibCST's placement there.
_UNMODELLED_ISORT = ("force_single_line", "from_first", "lines_between_types", "case_sensitive", "sections")


def project_import_sorting(paths: list[Path]) -> ImportSorting | None:
    """How the tree sorts its imports, when it configures a sorter: isort (`[tool.isort]`,
    `.isort.cfg`, `setup.cfg` or `tox.ini`'s `[isort]`, or an isort pre-commit hook) or ruff with
    its `I` rules selected; from the first folder that configures one, as `project_line_length`
    looks. None when the tree configures none, or one this placement does not model."""
    for folder in _configuration_folders(paths):
        isort = _isort_settings(folder)
        ruff = _ruff_settings(folder)
        sorts = ruff is not None and _selects_import_rules(ruff)
        if isort is None and not sorts and not re.search(r"id:\s*isort\b", _pre_commit_hooks(folder)):
            continue
        return _import_sorting(folder, isort or {}, ruff if sorts else None, paths)
    return None


def _import_sorting(
    folder: Path, isort: dict[str, Any], ruff: dict[str, Any] | None, paths: list[Path]
) -> ImportSorting | None:
    """The sorter `folder` configures: isort's settings merged with those of ruff's `I` rules."""
    if str(isort.get("profile", "black")) != "black" or any(_truthy(isort.get(key)) for key in _UNMODELLED_ISORT):
        return None
    ruff_isort = _table(_lint_table(ruff).get("isort", ruff.get("isort"))) if ruff is not None else {}
    if _truthy(ruff_isort.get("force-single-line")):
        return None

    def modules(isort_key: str, ruff_key: str) -> tuple[str, ...]:
        return tuple(sorted({*_names(isort.get(isort_key)), *_names(ruff_isort.get(ruff_key))}))

    sources = [*_names(isort.get("src_paths")), *_names((ruff or {}).get("src"))] or [".", "src"]
    line_length = str(isort.get("line_length", "")).strip()
    return ImportSorting(
        first_party=modules("known_first_party", "known-first-party"),
        third_party=modules("known_third_party", "known-third-party"),
        local_folder=modules("known_local_folder", "known-local-folder"),
        standard_library=modules("extra_standard_library", "extra-standard-library"),
        source_packages=_source_packages([folder / source for source in sources]),
        force_sort_within_sections=_truthy(isort.get("force_sort_within_sections"))
        or _truthy(ruff_isort.get("force-sort-within-sections")),
        order_by_type=_truthy(isort.get("order_by_type", True)) and _truthy(ruff_isort.get("order-by-type", True)),
        line_length=int(line_length) if line_length.isdigit() else project_line_length(paths),
    )


def _isort_settings(folder: Path) -> dict[str, Any] | None:
    """`folder`'s isort settings (keys with underscores), from the first file isort would read them
    from: `.isort.cfg`, `pyproject.toml`, `setup.cfg`, `tox.ini`; None when none has them."""
    for name, sections in (
        (".isort.cfg", ("settings", "isort")),
        ("pyproject.toml", ()),
        ("setup.cfg", ("isort", "tool:isort")),
        ("tox.ini", ("isort", "tool:isort")),
    ):
        path = folder / name
        if not path.is_file():
            continue
        if not sections:
            document = _toml(path)
            tools = document.get("tool", {}) if document is not None else {}
            table = tools.get("isort") if isinstance(tools, dict) else None
            if isinstance(table, dict):
                return {key.replace("-", "_"): value for key, value in table.items()}
            continue
        parser = configparser.ConfigParser(interpolation=None)
        try:
            parser.read_string(path.read_text(encoding="utf-8"))
        except (OSError, configparser.Error, UnicodeDecodeError):
            continue
        for section in sections:
            if parser.has_section(section):
                return {key.replace("-", "_"): value for key, value in parser.items(section)}
    return None


def _ruff_settings(folder: Path) -> dict[str, Any] | None:
    """`folder`'s ruff configuration: `ruff.toml`, `.ruff.toml`, else `[tool.ruff]`; None without one."""
    for name in ("ruff.toml", ".ruff.toml"):
        document = _toml(folder / name)
        if document is not None:
            return document
    document = _toml(folder / "pyproject.toml")
    tools = document.get("tool", {}) if document is not None else {}
    table = tools.get("ruff") if isinstance(tools, dict) else None
    return table if isinstance(table, dict) else None


def _lint_table(ruff: dict[str, Any]) -> dict[str, Any]:
    return _table(ruff.get("lint"))


def _table(value: object) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _selects_import_rules(ruff: dict[str, Any]) -> bool:
    """Whether ruff's selected rules include isort's (`I`, `I001`, `ALL`), in `lint` or at the top."""
    lint = _lint_table(ruff)

    def codes(key: str) -> list[str]:
        return [*_names(lint.get(key)), *_names(ruff.get(key))]

    def names_import_rules(code: str) -> bool:
        return code == "ALL" or code == "I" or code.startswith("I0")

    selected = any(map(names_import_rules, codes("select") + codes("extend-select")))
    return selected and not any(code in ("I", "I001") for code in codes("ignore"))


def _names(value: object) -> list[str]:
    """A list setting: a TOML list, or a configparser value separated by commas or newlines."""
    if isinstance(value, str):
        return [name.strip() for name in re.split(r"[,\n]", value) if name.strip()]
    if isinstance(value, list):
        return [name for name in value if isinstance(name, str)]
    return []


def _truthy(value: object) -> bool:
    return value is True or (isinstance(value, str) and value.strip().lower() in ("true", "1", "yes", "on"))


def _source_packages(folders: list[Path]) -> tuple[str, ...]:
    """The packages (any folder, as isort counts them) and modules found in the source roots: a
    sorter counts them first party."""
    found: set[str] = set()
    for folder in folders:
        try:
            entries = list(folder.iterdir()) if folder.is_dir() else []
        except OSError:
            continue
        for entry in entries:
            name = entry.name if entry.is_dir() else entry.stem if entry.suffix in (".py", ".pyi") else ""
            if name.isidentifier():
                found.add(name)
    return tuple(sorted(found))


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
