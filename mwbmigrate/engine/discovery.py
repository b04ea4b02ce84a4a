"""Which files a run looks at: `.gitignore` rules (via pathspec), include/exclude globs, no VCS or build folders."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

import pathspec

# Folders that never hold code a user wants rewritten; pruned before descending.
ALWAYS_SKIPPED_DIRS = frozenset({
    ".git", ".hg", ".svn", ".venv", "venv", ".tox", ".nox", "__pycache__", "build", "dist",
    ".mypy_cache", ".pytest_cache", ".ruff_cache", ".eggs", "node_modules", "site-packages",
})


TEMPORARY_SUFFIX = ".mwbmigrate.tmp"  # see engine.writer


class DiscoveryError(Exception):
    """A path given on the command line cannot be used; the message says why."""


@dataclass(frozen=True)
class DiscoveredFile:
    path: Path  # absolute
    display_path: str  # relative to the root the diff is expressed against


@dataclass
class Discovery:
    files: list[DiscoveredFile] = field(default_factory=list)
    problems: list[tuple[Path, str, str]] = field(default_factory=list)  # (path, display path, reason)
    stale_temporaries: list[Path] = field(default_factory=list)  # left by a run that was killed mid-write


def find_git_root(path: Path) -> Path | None:
    for candidate in [path, *path.parents]:
        if (candidate / ".git").exists():
            return candidate
    return None


def _is_virtualenv(directory: Path) -> bool:
    return (directory / "pyvenv.cfg").is_file()


def _gitignore_spec(directory: Path) -> pathspec.PathSpec | None:
    ignore_file = directory / ".gitignore"
    try:
        lines = ignore_file.read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return None
    return pathspec.GitIgnoreSpec.from_lines(lines)


class _IgnoreRules:
    """Nested `.gitignore` files, each applying to paths below its own folder (as git does)."""

    def __init__(self) -> None:
        self._specs: dict[Path, pathspec.PathSpec | None] = {}

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


def discover(
    paths: list[Path],
    include: list[str] | None = None,
    exclude: list[str] | None = None,
) -> Discovery:
    """Walk `paths` and return the Python files to consider, sorted by display path.

    A file named explicitly is always taken (unless excluded); folders are walked honouring
    `.gitignore` files between the repository root and the file.
    """
    include_spec = pathspec.GitIgnoreSpec.from_lines(include) if include else None
    exclude_spec = pathspec.GitIgnoreSpec.from_lines(exclude) if exclude else None
    rules = _IgnoreRules()
    result = Discovery()
    seen: set[Path] = set()

    for given in paths:
        absolute = Path(os.path.abspath(given))
        if not absolute.exists() and not absolute.is_symlink():
            raise DiscoveryError(f"{given}: no such file or folder")
        git_root = find_git_root(absolute if absolute.is_dir() else absolute.parent)
        display_root = git_root or (absolute if absolute.is_dir() else absolute.parent)
        ignore_root = git_root or display_root

        def accept(file_path: Path) -> None:
            relative = file_path.relative_to(display_root).as_posix()
            if include_spec is not None and not include_spec.match_file(relative):
                return
            if exclude_spec is not None and exclude_spec.match_file(relative):
                return
            if file_path in seen:
                return
            seen.add(file_path)
            result.files.append(DiscoveredFile(file_path, relative))

        if not absolute.is_dir():
            if absolute.is_symlink() and absolute.exists():
                result.problems.append((absolute, absolute.name, "is a symbolic link; rewrite its target instead"))
                continue
            accept(absolute)
            continue
        for directory, dirnames, filenames in os.walk(absolute, followlinks=False):
            here = Path(directory)
            kept = []
            for name in sorted(dirnames):
                child = here / name
                if name in ALWAYS_SKIPPED_DIRS or _is_virtualenv(child):
                    continue
                if name.endswith(".py") and not child.is_symlink():
                    result.problems.append((child, child.relative_to(display_root).as_posix(), "is a directory named *.py"))
                    continue
                if rules.ignored(child, ignore_root, is_dir=True):
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
                if child.is_symlink() and child.exists():
                    # The link stays a link; its target is migrated where it lives, if in the tree.
                    continue
                if rules.ignored(child, ignore_root, is_dir=False):
                    continue
                accept(child)

    result.files.sort(key=lambda f: f.display_path)
    return result
