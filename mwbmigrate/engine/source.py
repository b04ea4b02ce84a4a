"""Reading Python source faithfully: encoding declaration, BOM and newline style survive a round trip."""

from __future__ import annotations

import codecs
import io
import re
import tokenize
from dataclasses import dataclass

_PHYSICAL_LINE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+\Z")


class UnreadableSource(Exception):
    """The bytes are not Python source text this tool can round-trip; the message is the one-line reason."""


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
