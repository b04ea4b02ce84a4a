"""Atomic writes: a file is either its original bytes or its complete new text, never a mix."""

from __future__ import annotations

import errno
import os
import stat
import tempfile
from pathlib import Path

from mwbmigrate.engine.pause import pause_point

# What `git apply` gives a file that a `new file mode 100644` patch creates.
NEW_FILE_MODE = 0o644


def write_atomically(path: Path, data: bytes) -> None:
    """Write `data` to `path` through a temporary file in the same folder and `os.replace`.

    The temporary file lives next to the target so the replace never crosses a filesystem; it is
    removed on any failure, and the original mode bits are carried over.
    """
    _write_through_temporary(path, data, stat.S_IMODE(os.stat(path).st_mode))


def create_atomically(path: Path, data: bytes, mode: int = NEW_FILE_MODE) -> None:
    """Create `path` with `data` the same way: complete or absent. Refuses an existing file.

    The last-moment check only narrows the window: a file created between it and the replace is
    overwritten, as with any rename.
    """
    if os.path.lexists(path):
        raise FileExistsError(errno.EEXIST, "already exists", str(path))
    _write_through_temporary(path, data, mode)


def _write_through_temporary(path: Path, data: bytes, mode: int) -> None:
    descriptor, temporary = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".mwbmigrate.tmp", dir=path.parent)
    try:
        with os.fdopen(descriptor, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        pause_point("write")  # tests only: a signal lands while the temporary file exists
        os.chmod(temporary, mode)
        os.replace(temporary, path)
    except BaseException:
        try:
            os.unlink(temporary)
        except FileNotFoundError:
            pass
        raise
