"""Applying results to disk: the dirty-tree guard and the atomic writes."""

from __future__ import annotations

import subprocess
from collections import defaultdict
from pathlib import Path

from mwbmigrate.engine.discovery import find_git_root
from mwbmigrate.engine.source import UnreadableFile, decode_source, read_regular_file
from mwbmigrate.engine.writer import write_atomically
from mwbmigrate.result import FileResult


def dirty_files(paths: list[Path]) -> list[Path]:
    """Files among `paths` with uncommitted changes, untracked or ignored, in their git work tree."""
    by_root: dict[Path, list[Path]] = defaultdict(list)
    for path in paths:
        root = find_git_root(path.parent)
        if root is not None:
            by_root[root].append(path)
    dirty: list[Path] = []
    for root, members in by_root.items():
        completed = subprocess.run(
            # Ignored files too: git could not give their original back either.
            [
                "git",
                "-C",
                str(root),
                "status",
                "--porcelain",
                "-z",
                "--untracked-files=all",
                "--ignored=matching",
                "--",
                *[str(p.relative_to(root)) for p in members],
            ],
            capture_output=True,
        )
        if completed.returncode != 0:
            continue  # not a usable work tree (no git binary, corrupt index): nothing to protect with
        for entry in completed.stdout.split(b"\0"):
            if len(entry) > 3:
                dirty.append(root / entry[3:].decode("utf-8", "surrogateescape"))
    return sorted(set(dirty) & {p for p in paths} or set(dirty))


def write_result(result: FileResult) -> str | None:
    """Write one changed file; returns a reason when it could not be written (file left as it was)."""
    path = Path(result.path)
    if path.is_symlink():  # never written through: the link would become a copy, or its target change unseen
        return "is a symbolic link; not written through"
    try:
        current = decode_source(read_regular_file(path))
        if current.text != result.original:
            return "changed on disk during the run; not written"
        write_atomically(path, current.encode(result.rewritten or ""))
    except UnreadableFile as error:  # swapped for a FIFO or removed since it was read
        return f"{error}; file left untouched"
    except PermissionError:
        return "permission denied while writing; file left untouched"
    except OSError as error:
        return f"could not be written ({error.strerror or error}); file left untouched"
    except Exception as error:  # decode errors cannot happen here, but never lose a file to surprise
        return f"could not be written ({error}); file left untouched"
    return None
