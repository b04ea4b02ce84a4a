"""Reading Python source faithfully: encoding declaration, BOM and newline style survive a round trip.

Only regular files are read: a FIFO, socket or device named `*.py` would block the run or yield
endless bytes, so `os.stat` decides before anything is opened, and the opened descriptor is checked
again (a file replaced by a FIFO in between is opened without blocking, then refused)."""

from __future__ import annotations

import codecs
import errno
import io
import os
import re
import stat
import tokenize
from dataclasses import dataclass
from pathlib import Path

_PHYSICAL_LINE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+\Z")


class UnreadableSource(Exception):
    """The bytes are not Python source text this tool can round-trip; the message is the one-line reason."""


class UnreadableFile(Exception):
    """A path whose bytes cannot be read as a regular file's; the message is the one-line reason."""


_KINDS = (
    (stat.S_ISFIFO, "a FIFO (named pipe)"),
    (stat.S_ISSOCK, "a socket"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
)
SYMLINK_LOOP = "symbolic link loop; not followed"
BROKEN_SYMLINK = "broken symbolic link"
# os.open flags that may be missing on some platforms (Windows has no FIFOs to guard against).
_NO_BLOCK = getattr(os, "O_NONBLOCK", 0)
_NO_FOLLOW = getattr(os, "O_NOFOLLOW", 0)
_CLOSE_ON_EXEC = getattr(os, "O_CLOEXEC", 0)


def special_kind(mode: int) -> str:
    """What a path of this `st_mode` is, when it is neither a regular file, a folder nor a link."""
    return next((name for test, name in _KINDS if test(mode)), "a special file")


def not_regular_reason(mode: int) -> str | None:
    """Why a path of this `st_mode` is not read (None for a regular file). A directory and a
    symbolic link are the caller's to handle; they get a reason here only if they reach a read."""
    if stat.S_ISREG(mode):
        return None
    if stat.S_ISDIR(mode):
        return "is a directory"
    if stat.S_ISLNK(mode):
        return "is a symbolic link; not followed"
    return f"is {special_kind(mode)}, not a regular file; not read"


def os_error_reason(error: OSError, *, followed: bool) -> str:
    """The one-line reason for an `os.stat`/`os.open` failure on a file the run meant to read."""
    if isinstance(error, PermissionError):
        return "permission denied"
    if error.errno == errno.ELOOP:
        # With O_NOFOLLOW, ELOOP means the last component is a link (put there since it was listed).
        return SYMLINK_LOOP if followed else "is a symbolic link; not followed"
    if isinstance(error, FileNotFoundError):
        return "no longer exists (removed during the run)"
    return f"cannot read: {error.strerror or error}"


def read_regular_file(path: Path | str, *, follow_symlinks: bool = False) -> bytes:
    """The bytes of `path`, which must be a regular file; otherwise `UnreadableFile` with the reason.

    `os.stat` decides first, so a FIFO or device is never opened; the descriptor is opened
    non-blocking and checked with `fstat` again before any read, so a file swapped for a FIFO after
    that check still cannot block. Without `follow_symlinks` a symbolic link is refused, never read
    through."""
    try:
        info = os.stat(path, follow_symlinks=follow_symlinks)
    except OSError as error:
        raise UnreadableFile(os_error_reason(error, followed=follow_symlinks)) from None
    reason = not_regular_reason(info.st_mode)
    if reason is not None:
        raise UnreadableFile(reason)
    flags = os.O_RDONLY | _NO_BLOCK | _CLOSE_ON_EXEC | (0 if follow_symlinks else _NO_FOLLOW)
    try:
        descriptor = os.open(path, flags)
    except OSError as error:
        raise UnreadableFile(os_error_reason(error, followed=follow_symlinks)) from None
    try:
        reason = not_regular_reason(os.fstat(descriptor).st_mode)
        if reason is not None:
            raise UnreadableFile(reason)
        # O_NONBLOCK does not change how a regular file reads; `finally` closes the descriptor.
        with open(descriptor, "rb", closefd=False) as handle:
            return handle.read()
    except OSError as error:
        raise UnreadableFile(os_error_reason(error, followed=follow_symlinks)) from None
    finally:
        os.close(descriptor)


@dataclass(frozen=True)
class DecodedSource:
    text: str
    encoding: str
    has_bom: bool

    def encode(self, text: str) -> bytes:
        data = text.encode(self.encoding)
        return codecs.BOM_UTF8 + data if self.has_bom else data


def decode_source(data: bytes) -> DecodedSource:
    if b"\x00" in data:
        raise UnreadableSource("contains null bytes")
    has_bom = data.startswith(codecs.BOM_UTF8)
    body = data[len(codecs.BOM_UTF8) :] if has_bom else data
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
    except SyntaxError as error:
        raise UnreadableSource(f"bad encoding declaration: {error}") from None
    if encoding == "utf-8-sig":
        encoding = "utf-8"
    try:
        text = body.decode(encoding)
    except (UnicodeDecodeError, LookupError) as error:
        raise UnreadableSource(f"not valid {encoding} text ({error.__class__.__name__})") from None
    return DecodedSource(text=text, encoding=encoding, has_bom=has_bom)


def source_lines(text: str) -> list[str]:
    """The physical lines of Python source, each with its line ending, split where Python's
    tokenizer, `ast` and LibCST count lines: at "\\n", "\\r\\n" and "\\r" only. `str.splitlines` also
    splits at form feeds, vertical tabs and other separators a line of source may hold, which
    would put every line number after one of them off by one."""
    return _PHYSICAL_LINE.findall(text)


def source_line_texts(text: str) -> list[str]:
    """`source_lines` without the line endings (as `str.splitlines()` gives them, numbered right)."""
    return [line.rstrip("\r\n") for line in source_lines(text)]
