"""Which files a run looks at: `.gitignore` rules (via pathspec), include/exclude globs, no VCS or build folders."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

import pathspec

from mwbmigrate.codemods import PREFILTER_BYTES  # the union of the codemods' TRIGGERS

# Folders that never hold code a user wants rewritten; pruned before descending.
ALWAYS_SKIPPED_DIRS = frozenset(
    {
        ".git",
        ".hg",
        ".svn",
        ".venv",
        "venv",
        ".tox",
        ".nox",
        "__pycache__",
        "build",
        "dist",
        ".mypy_cache",
        ".pytest_cache",
        ".ruff_cache",
        ".eggs",
        "node_modules",
        "site-packages",
    }
)


TEMPORARY_SUFFIX = ".mwbmigrate.tmp"  # see engine.writer


class DiscoveryError(Exception):
    """A path given on the command line cannot be used; the message says why."""


@dataclass(frozen=True)
class DiscoveredFile:
    path: Path  # absolute
    display_path: str  # relative to the root the diff is expressed against
    data: bytes | None = None  # the module's bytes when they do not come from `path` (stdin)


@dataclass
class Discovery:
    files: list[DiscoveredFile] = field(default_factory=list)
    problems: list[tuple[Path, str, str]] = field(default_factory=list)  # (path, display path, reason)
    links: list[tuple[Path, str, str]] = field(
        default_factory=list
    )  # symbolic links, never followed: (path, display path, why)
    stale_temporaries: list[Path] = field(default_factory=list)  # left by a run that was killed mid-write


def find_git_root(path: Path) -> Path | None:
    for candidate in [path, *path.parents]:
        if (candidate / ".git").exists():
            return candidate
    return None


def _is_virtualenv(directory: Path) -> bool:
    return (directory / "pyvenv.cfg").is_file()


def _gitignore_spec(directory: Path) -> pathspec.GitIgnoreSpec | None:
    ignore_file = directory / ".gitignore"
    try:
        lines = ignore_file.read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return None
    return pathspec.GitIgnoreSpec.from_lines(lines)


class _IgnoreRules:
    """Nested `.gitignore` files, each applying to paths below its own folder (as git does)."""

    def __init__(self) -> None:
        self._specs: dict[Path, pathspec.GitIgnoreSpec | None] = {}

    def ignored(self, path: Path, root: Path, is_dir: bool) -> bool:
        for directory in [path.parent, *path.parent.parents]:
            if directory not in self._specs:
                self._specs[directory] = _gitignore_spec(directory)
            spec = self._specs[directory]
            if spec is not None:
                relative = path.relative_to(directory).as_posix() + ("/" if is_dir else "")
                if spec.match_file(relative):
                    return True
            if directory == root:
                break
        return False


class _Filters:
    """`--include` / `--exclude` globs, matched against display paths (a folder with a trailing slash)."""

    def __init__(self, include: list[str] | None, exclude: list[str] | None) -> None:
        self._include = pathspec.GitIgnoreSpec.from_lines(include) if include else None
        self._exclude = pathspec.GitIgnoreSpec.from_lines(exclude) if exclude else None

    def excludes_folder(self, relative: str) -> bool:
        # Only exclusion prunes a folder: an include glob names files, and may match below it.
        return self._exclude is not None and self._exclude.match_file(relative + "/")

    def takes_file(self, relative: str) -> bool:
        if self._include is not None and not self._include.match_file(relative):
            return False
        return self._exclude is None or not self._exclude.match_file(relative)


def _root_of(absolute: Path) -> Path:
    """Where one command-line path's display paths start: its git work tree, else the path itself."""
    folder = absolute if absolute.is_dir() else absolute.parent
    return find_git_root(folder) or folder


def display_root(paths: list[Path]) -> Path:
    """One root for all `paths`, so that two roots' `mod.py` never print as the same path: the
    shared git work tree, else the common ancestor of each path's own root (a patch applies there)."""
    roots = {_root_of(Path(os.path.abspath(p))) for p in paths}
    if len(roots) == 1:
        return roots.pop()
    return Path(os.path.commonpath([str(r) for r in roots]))


def _link_reason(link: Path, root: Path, taken: set[Path]) -> str:
    """Why a symbolic link is left alone, naming what its target needs."""
    target = Path(os.path.realpath(link))
    shown = target.relative_to(root).as_posix() if target.is_relative_to(root) else str(target)
    if target.is_dir():
        return "symbolic link to a folder; not followed"
    try:
        old_api = PREFILTER_BYTES.search(target.read_bytes()) is not None
    except OSError:
        old_api = False
    if not old_api:
        return "symbolic link; not followed (its target does not use the old API)"
    if target in taken:
        return f"symbolic link; not followed (its target {shown} is rewritten where it lives)"
    return f"symbolic link; not followed: its target {shown} uses the old API, rewrite it there"


def discover(
    paths: list[Path],
    include: list[str] | None = None,
    exclude: list[str] | None = None,
) -> Discovery:
    """Walk `paths` and return the Python files to consider, sorted by display path.

    Every entry meets the same rules in the same order, named or walked: `.gitignore` (walked
    entries only: a file named explicitly is always taken) and `--include`/`--exclude` first, then
    what it is. A folder is walked whatever its name; a symbolic link is never followed nor written
    through, and is listed in `links` with the reason (a broken one is a file that cannot be read).
    """
    filters = _Filters(include, exclude)
    rules = _IgnoreRules()
    result = Discovery()
    seen: set[Path] = set()
    root = display_root(paths) if paths else Path.cwd()
    links: list[tuple[Path, str]] = []

    def take(file_path: Path) -> None:
        relative = file_path.relative_to(root).as_posix()
        if file_path in seen or not filters.takes_file(relative):
            return
        seen.add(file_path)
        if file_path.is_symlink() and file_path.exists():
            links.append((file_path, relative))
            return
        result.files.append(DiscoveredFile(file_path, relative))

    for given in paths:
        absolute = Path(os.path.abspath(given))
        if not absolute.exists() and not absolute.is_symlink():
            raise DiscoveryError(f"{given}: no such file or folder")
        if not absolute.is_dir():
            take(absolute)
            continue
        ignore_root = _root_of(absolute)
        for directory, dirnames, filenames in os.walk(absolute, followlinks=False):
            here = Path(directory)
            kept = []
            for name in sorted(dirnames):
                child = here / name
                if name in ALWAYS_SKIPPED_DIRS or rules.ignored(child, ignore_root, is_dir=True):
                    continue
                if filters.excludes_folder(child.relative_to(root).as_posix()):
                    continue
                if child.is_symlink():
                    links.append((child, child.relative_to(root).as_posix()))
                    continue
                if _is_virtualenv(child):
                    continue
                kept.append(name)
            dirnames[:] = kept
            for name in sorted(filenames):
                if name.startswith(".") and name.endswith(TEMPORARY_SUFFIX):
                    result.stale_temporaries.append(here / name)
                    continue
                if not name.endswith((".py", ".pyi")):
                    continue
                child = here / name
                if rules.ignored(child, ignore_root, is_dir=False):
                    continue
                take(child)

    taken = {Path(os.path.realpath(f.path)) for f in result.files}  # realpath: a link loop does not raise
    result.links = [
        (path, relative, _link_reason(path, root, taken)) for path, relative in sorted(links, key=lambda link: link[1])
    ]
    result.files.sort(key=lambda f: f.display_path)
    return result


def discover_source(
    filename: str, data: bytes, include: list[str] | None = None, exclude: list[str] | None = None
) -> Discovery:
    """One module read elsewhere (stdin) that lives at `filename`: the rules of a file named there."""
    absolute = Path(os.path.abspath(filename))
    relative = absolute.relative_to(display_root([absolute])).as_posix()
    result = Discovery()
    if _Filters(include, exclude).takes_file(relative):
        result.files.append(DiscoveredFile(absolute, relative, data))
    return result
