"""Which files a run looks at: `.gitignore` rules (via pathspec), include/exclude globs, no VCS or build folders.

Only regular files are taken. What each path is comes from `os.lstat`, never from opening it: a FIFO,
socket or device named `*.py`, a symbolic link loop or a path that vanished gets a one-line reason
in `problems` (the run then exits 2, every other file still processed), named or met in a walk.
"""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass, field
from pathlib import Path

import pathspec

from mwbmigrate.engine.source import (
    BROKEN_SYMLINK,
    UnreadableFile,
    not_regular_reason,
    os_error_reason,
    read_regular_file,
    special_kind,
)
from mwbmigrate.rules import byte_candidate  # the union of the codemods' TRIGGERS

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
# Those of them that are also real package names (pip's `operations/build/`): still skipped, as
# ruff skips them, but listed in the report with the reason, so that no package is hidden unsaid.
BUILD_OUTPUT_DIRS = frozenset({"build", "dist"})


TEMPORARY_SUFFIX = ".mwbmigrate.tmp"  # see engine.writer


class DiscoveryError(Exception):
    """A path given on the command line cannot be used; the message says why."""


@dataclass(frozen=True)
class DiscoveredFile:
    path: Path  # absolute
    display_path: str  # relative to the root the diff is expressed against
    data: bytes | None = None  # the module's bytes when they do not come from `path` (stdin)


@dataclass(frozen=True)
class SkippedFolder:
    """A folder not walked because of its name (BUILD_OUTPUT_DIRS), reported with the reason."""

    path: Path  # absolute
    display_path: str  # with a trailing slash
    reason: str


@dataclass
class Discovery:
    files: list[DiscoveredFile] = field(default_factory=list)
    problems: list[tuple[Path, str, str]] = field(default_factory=list)  # (path, display path, reason)
    links: list[tuple[Path, str, str]] = field(
        default_factory=list
    )  # symbolic links, never followed: (path, display path, why)
    stale_temporaries: list[Path] = field(default_factory=list)  # left by a run that was killed mid-write
    skipped_folders: list[SkippedFolder] = field(default_factory=list)


def find_git_root(path: Path) -> Path | None:
    for candidate in [path, *path.parents]:
        # os.path.exists: a folder that cannot be searched has no work tree we could use, and no traceback.
        if os.path.exists(candidate / ".git"):
            return candidate
    return None


def _is_virtualenv(directory: Path) -> bool:
    return os.path.isfile(directory / "pyvenv.cfg")


def _is_folder(path: Path) -> bool:
    """A folder, or a link to one (a named link to a folder is walked); False for what cannot be stat'ed."""
    try:
        return stat.S_ISDIR(os.stat(path).st_mode)
    except OSError:
        return False


def _gitignore_spec(directory: Path) -> pathspec.GitIgnoreSpec | None:
    try:
        # A `.gitignore` that is a FIFO must not block the walk either; a link to a real one is read.
        data = read_regular_file(directory / ".gitignore", follow_symlinks=True)
    except UnreadableFile:
        return None
    lines = data.decode("utf-8", errors="replace").splitlines()
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
    folder = absolute if _is_folder(absolute) else absolute.parent
    return find_git_root(folder) or folder


def display_root(paths: list[Path]) -> Path:
    """One root for all `paths`, so that two roots' `mod.py` never print as the same path: the
    shared git work tree, else the common ancestor of each path's own root (a patch applies there)."""
    roots = {_root_of(Path(os.path.abspath(p))) for p in paths}
    if len(roots) == 1:
        return roots.pop()
    return Path(os.path.commonpath([str(r) for r in roots]))


def _link_problem(link: Path) -> str | None:
    """Why a symbolic link is a file that cannot be read (broken, a loop), None when it resolves."""
    try:
        os.stat(link)
    except (FileNotFoundError, NotADirectoryError):
        return BROKEN_SYMLINK
    except OSError as error:
        return os_error_reason(error, followed=True)
    return None


def _link_reason(link: Path, root: Path, taken: set[Path]) -> str:
    """Why a symbolic link is left alone, naming what its target needs."""
    target = Path(os.path.realpath(link))
    shown = target.relative_to(root).as_posix() if target.is_relative_to(root) else str(target)
    try:
        mode = os.stat(target).st_mode
    except OSError:
        mode = stat.S_IFREG  # gone since it resolved: the read below fails, and the reason says so
    if stat.S_ISDIR(mode):
        return "symbolic link to a folder; not followed"
    if not stat.S_ISREG(mode):
        return f"symbolic link to {special_kind(mode)}; not followed"
    try:
        old_api = byte_candidate(read_regular_file(target))
    except UnreadableFile:
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
    what it is, by `os.lstat`. A folder is walked whatever its name, but for the names that are
    always skipped below a root (BUILD_OUTPUT_DIRS among them are listed in `skipped_folders`); a
    symbolic link is never followed nor written through, and is listed in `links` with the reason
    (a broken one, or a loop, is a file that cannot be read); anything but a regular file is a
    problem with its reason, and is never opened.
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
        try:
            mode = os.lstat(file_path).st_mode
        except OSError as error:  # gone since its folder was listed, or a folder above it loops
            result.problems.append((file_path, relative, os_error_reason(error, followed=True)))
            return
        if stat.S_ISLNK(mode):
            problem = _link_problem(file_path)
            if problem is None:
                links.append((file_path, relative))
            else:
                result.problems.append((file_path, relative, problem))
            return
        problem = not_regular_reason(mode)
        if problem is not None:
            result.problems.append((file_path, relative, problem))
            return
        result.files.append(DiscoveredFile(file_path, relative))

    def unlisted(error: OSError) -> None:
        # os.walk would leave a folder it cannot list out without a word.
        if error.filename is None:
            return
        folder = Path(os.fsdecode(error.filename))
        relative = folder.relative_to(root).as_posix() + "/"
        result.problems.append((folder, relative, f"folder not walked: {os_error_reason(error, followed=True)}"))

    for given in paths:
        absolute = Path(os.path.abspath(given))
        try:
            os.lstat(absolute)
        except (FileNotFoundError, NotADirectoryError):
            raise DiscoveryError(f"{given}: no such file or folder") from None
        except OSError:
            take(absolute)  # a loop or a folder above it that cannot be searched: take() says which
            continue
        if not _is_folder(absolute):
            take(absolute)
            continue
        ignore_root = _root_of(absolute)
        for directory, dirnames, filenames in os.walk(absolute, onerror=unlisted, followlinks=False):
            here = Path(directory)
            kept = []
            for name in sorted(dirnames):
                child = here / name
                if rules.ignored(child, ignore_root, is_dir=True):
                    continue
                if filters.excludes_folder(child.relative_to(root).as_posix()):
                    continue
                if name in BUILD_OUTPUT_DIRS:
                    relative = child.relative_to(root).as_posix() + "/"
                    reason = (
                        f"a folder named {name} is taken for build output and not walked (as ruff does); "
                        "name it on the command line to migrate it"
                    )
                    result.skipped_folders.append(SkippedFolder(child, relative, reason))
                    continue
                if name in ALWAYS_SKIPPED_DIRS:
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
    if not _Filters(include, exclude).takes_file(relative):
        return result
    problem = _stdin_file_problem(absolute)
    if problem is not None:
        result.problems.append((absolute, relative, problem))
    else:
        result.files.append(DiscoveredFile(absolute, relative, data))
    return result


def _stdin_file_problem(path: Path) -> str | None:
    """Why stdin's module cannot stand for `path`: only a regular file, or one not saved yet.

    The path itself is never read for the module, but later steps may read what lives there."""
    try:
        mode = os.stat(path).st_mode
    except (FileNotFoundError, NotADirectoryError, PermissionError):
        return None  # not there (an unsaved buffer), or not ours to look at: the module is on stdin
    except OSError as error:
        return os_error_reason(error, followed=True)
    return not_regular_reason(mode)


def root_problem(path: Path) -> str | None:
    """Why `path` cannot be a tree or file to check (`mwbmigrate verify PATH`): it must be a folder or
    a regular file, links followed as verify reads through them; found by `os.stat`, never by opening."""
    try:
        mode = os.stat(path).st_mode
    except (FileNotFoundError, NotADirectoryError):
        return "no such file or folder"
    except OSError as error:
        return os_error_reason(error, followed=True)
    return None if stat.S_ISDIR(mode) else not_regular_reason(mode)
