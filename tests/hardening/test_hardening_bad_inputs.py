"""The bad-input matrix (issue 7): one test per row, each through the real `rewrite` command.

Each row builds a small tree in a temporary folder (not a git work tree, so in-place writing is
allowed), runs `mwbmigrate rewrite ... --jobs 1 --no-progress`, and checks the exit code, the
one-line reason on stderr, and every file's bytes: a file is only ever its original bytes or its
migrated text, and only the files that should change do. Rows that must reach the parser contain
the old API, so the textual prefilter does not skip them.

Documented behaviour (issue 2, `mwbmigrate --help`): exit 0 success / nothing to do, 1 --check found
changes, 2 bad usage or at least one file could not be processed (the others are still processed and
reported); a file that does not parse, is not UTF-8 or declared-encoding text, is a broken symlink,
or unreadable gets a one-line reason and is never modified; a symbolic link is skipped with its reason.

Issue 23: anything but a regular file (a FIFO, a socket, a device, a symbolic link loop), named,
walked, given as `--stdin-filename` or to `verify`, gets its one-line reason and exit 2, and the
other files are still processed. Those rows run out of process with a timeout, so that a run that
blocks on a FIFO fails its row instead of hanging the suite.
"""

from __future__ import annotations

import codecs
import os
import socket
import stat
import subprocess
import sys
import textwrap
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

import pytest
from typer.testing import CliRunner

from mwbmigrate.cli import app

SAMPLE = textwrap.dedent(
    """\
    from sglang.srt.managers.schedule_batch import ModelWorkerBatch


    def forward(model_worker_batch: ModelWorkerBatch):
        return model_worker_batch.seq_lens


    def step(batch):
        x = batch.get_model_worker_batch()
        return forward(x)
    """
)
OLD_TOKENS = (b"ModelWorkerBatch", b"get_model_worker_batch")


@pytest.fixture(scope="module")
def migrated(tmp_path_factory) -> str:
    """SAMPLE's migrated text (LF), from a clean run; every row is judged against it."""
    root = tmp_path_factory.mktemp("reference")
    (root / "sample.py").write_text(SAMPLE)
    result = CliRunner().invoke(app, ["rewrite", str(root), "--jobs", "1", "--no-progress"])
    assert result.exit_code == 0, result.output
    text = (root / "sample.py").read_text()
    assert "ScheduleBatch" in text and "get_model_worker_batch" not in text
    return text


@dataclass
class Case:
    args: list[str]  # after `rewrite`; paths are relative to the row's folder
    exit_code: int
    stderr: list[str] = field(default_factory=list)  # substrings expected on stderr (case-insensitive)
    changed: dict[str, Callable[[bytes], None]] = field(default_factory=dict)  # relative path -> check of new bytes
    subprocess: bool = False  # run out of process (a crash must not take pytest down)
    extra: Callable[[], None] | None = None  # further checks outside the row's folder
    timeout: float = 300
    command: str = "rewrite"  # or "verify"
    stdin: bytes = b""
    stdout: bytes | None = None  # the exact stdout expected, when it matters (stdin rows)


def _check_migrated(migrated: str, transform_bytes: Callable[[bytes], bytes] = lambda b: b) -> Callable[[bytes], None]:
    def check(data: bytes) -> None:
        assert data == transform_bytes(migrated.encode()), data[:400]

    return check


def _compiles(data: bytes) -> None:
    compile(data, "<rewritten>", "exec", dont_inherit=True)
    assert not any(token in data for token in OLD_TOKENS), data[:400]


# --- the rows ----------------------------------------------------------------------------------------------


def row_empty_file(root: Path, migrated: str) -> Case:
    (root / "empty.py").write_bytes(b"")
    return Case(["."], 0)


def row_only_comments(root: Path, migrated: str) -> Case:
    # Mentions the old API (passes the prefilter, gets parsed); comments are prose, left for humans (spec M).
    (root / "comments.py").write_bytes(b"# ModelWorkerBatch used to live here\n# see get_model_worker_batch()\n")
    return Case(["."], 0)


def row_crlf(root: Path, migrated: str) -> Case:
    (root / "crlf.py").write_bytes(SAMPLE.replace("\n", "\r\n").encode())
    return Case(["."], 0, changed={"crlf.py": _check_migrated(migrated, lambda b: b.replace(b"\n", b"\r\n"))})


MIXED = "".join(
    line.replace("\n", "\r\n") if index % 2 else line for index, line in enumerate(SAMPLE.splitlines(keepends=True))
)


def row_mixed_line_endings(root: Path, migrated: str) -> Case:
    (root / "mixed.py").write_bytes(MIXED.encode())

    def check(data: bytes) -> None:
        _compiles(data)
        assert data.replace(b"\r\n", b"\n") == migrated.encode()
        # Lines the migration does not touch keep their own ending (CRLF or LF).
        untouched = set(migrated.encode().splitlines(keepends=True))
        kept = [
            line
            for line in MIXED.encode().splitlines(keepends=True)
            if line.strip() and line.replace(b"\r\n", b"\n") in untouched
        ]
        new_lines = data.splitlines(keepends=True)
        assert kept and all(line in new_lines for line in kept), kept
        blank = [line for line in MIXED.encode().splitlines(keepends=True) if not line.strip()]
        assert [line for line in new_lines if not line.strip()] == blank
        assert b"\r\n" in blank and b"\n" in blank

    return Case(["."], 0, changed={"mixed.py": check})


def row_cr_only_line_endings(root: Path, migrated: str) -> Case:
    # Old Mac line endings: refused on purpose with a reason (LibCST cannot round-trip them).
    (root / "mac.py").write_bytes(SAMPLE.replace("\n", "\r").encode())
    return Case(["."], 2, stderr=["mac.py: old Mac (CR-only) line endings are not supported"])


def row_tabs(root: Path, migrated: str) -> Case:
    (root / "tabs.py").write_bytes(SAMPLE.replace("    ", "\t").encode())

    def check(data: bytes) -> None:
        _compiles(data)
        assert b"\n\treturn" in data and b"\n    " not in data, data
        assert data.replace(b"\t", b"    ") == migrated.encode()

    return Case(["."], 0, changed={"tabs.py": check})


def row_bom(root: Path, migrated: str) -> Case:
    (root / "bom.py").write_bytes(codecs.BOM_UTF8 + SAMPLE.encode())
    return Case(["."], 0, changed={"bom.py": _check_migrated(migrated, lambda b: codecs.BOM_UTF8 + b)})


LATIN1 = "# -*- coding: latin-1 -*-\n# café\n" + SAMPLE + "GREETING = 'déjà vu'\n"


def row_latin1_declaration(root: Path, migrated: str) -> Case:
    (root / "latin.py").write_bytes(LATIN1.encode("latin-1"))

    def check(data: bytes) -> None:
        _compiles(data)  # compile() of bytes honours the declaration
        assert data.startswith(b"# -*- coding: latin-1 -*-\n# caf\xe9\n"), data[:60]
        assert data.endswith(b"GREETING = 'd\xe9j\xe0 vu'\n")
        assert data.decode("latin-1") == LATIN1.replace(SAMPLE, migrated)

    return Case(["."], 0, changed={"latin.py": check})


FORM_FEEDS = SAMPLE.replace("\n\n\ndef step", "\n\n\x0c\ndef step").replace(
    "\n\n\ndef forward", "\n\n\x0c\ndef forward"
)
FORM_FEED_BEFORE_STATEMENT = SAMPLE.replace("def forward", "\x0cdef forward")


def row_form_feeds(root: Path, migrated: str) -> Case:
    # A form feed alone on a line between top-level definitions (the usual page break).
    (root / "ff.py").write_bytes(FORM_FEEDS.encode())

    def check(data: bytes) -> None:
        _compiles(data)
        assert data.count(b"\x0c\n") == 2
        assert data.replace(b"\x0c\n", b"") == migrated.encode().replace(b"\n\n\ndef", b"\n\ndef")

    return Case(["."], 0, changed={"ff.py": check})


def row_form_feed_before_statement(root: Path, migrated: str) -> Case:
    # A form feed at the start of a statement line is legal whitespace LibCST cannot reproduce:
    # the file is refused with a reason rather than written with the byte lost.
    (root / "ff.py").write_bytes(FORM_FEED_BEFORE_STATEMENT.encode())
    return Case(["."], 2, stderr=["ff.py", "byte for byte"])


LONG_STRING = "s = '" + "x" * 200_000 + "'\n"
LONG_COMMENT = "# " + "ModelWorkerBatch " * 10_000 + "\n"
LONG_EXPRESSION = "values = [" + ", ".join(str(i) for i in range(1_000)) + "]\n"


def row_very_long_lines(root: Path, migrated: str) -> Case:
    (root / "long.py").write_bytes((SAMPLE + LONG_STRING + LONG_COMMENT + LONG_EXPRESSION).encode())

    def check(data: bytes) -> None:
        compile(data, "long.py", "exec")
        assert data == (migrated + LONG_STRING + LONG_COMMENT + LONG_EXPRESSION).encode()

    return Case(["."], 0, changed={"long.py": check})


NESTED_OK = (
    "deep = "
    + "(" * 190
    + "1"
    + ")" * 190
    + "\nlists = "
    + "[" * 100
    + "]" * 100
    + "\nconfig = "
    + "{'k': " * 100
    + "1"
    + "}" * 100
    + "\n"
)


def row_deeply_nested_valid(root: Path, migrated: str) -> Case:
    # 190 parentheses, 100 brackets/braces: valid Python (CPython allows 200 nested parentheses).
    (root / "nested.py").write_bytes((SAMPLE + NESTED_OK).encode())
    return Case(["."], 0, changed={"nested.py": _check_migrated(migrated, lambda b: b + NESTED_OK.encode())})


def row_deeply_nested_beyond_python(root: Path, migrated: str) -> Case:
    # 3000 levels: CPython refuses it ("too many nested parentheses"); the tool must report and go on.
    (root / "a_nested.py").write_bytes((SAMPLE + "deep = " + "[" * 3000 + "]" * 3000 + "\n").encode())
    (root / "b_ok.py").write_bytes(SAMPLE.encode())
    return Case(["."], 2, stderr=["a_nested.py"], changed={"b_ok.py": _check_migrated(migrated)}, subprocess=True)


# Valid Python (CPython compiles both) that LibCST's recursive visitors may give up on: then a clean refusal.
VALID_BUT_DEEP = {
    "operator-chain-1000": "total = " + " + ".join(["1"] * 1_000) + "\n",
    "brackets-180": "deep = " + "[" * 180 + "]" * 180 + "\n",
}


def row_python2_syntax(root: Path, migrated: str) -> Case:
    (root / "py2.py").write_bytes((SAMPLE + "print 'hello'\nexec 'x = 1'\n").encode())
    (root / "ok.py").write_bytes(SAMPLE.encode())
    return Case(["."], 2, stderr=["py2.py: does not parse"], changed={"ok.py": _check_migrated(migrated)})


def row_null_bytes(root: Path, migrated: str) -> Case:
    (root / "nul.py").write_bytes(SAMPLE.encode() + b"x = '\x00'\n")
    return Case(["."], 2, stderr=["nul.py: contains null bytes"])


FIVE_MB_BLOCK = textwrap.dedent(
    '''\


    def handler_{n}(model_worker_batch: ModelWorkerBatch):
        """{doc}"""
        return model_worker_batch.seq_lens
    '''
)


def _five_mb() -> str:
    doc = (
        "Lorem ipsum dolor sit amet. " * 1800
    )  # ~50 KB per block: size, not node count (throughput is not tested here)
    blocks = [FIVE_MB_BLOCK.format(n=n, doc=doc) for n in range(100)]
    text = SAMPLE + "".join(blocks)
    assert len(text) > 5_000_000
    return text


def row_five_mb_file(root: Path, migrated: str) -> Case:
    text = _five_mb()
    (root / "big.py").write_bytes(text.encode())

    def check(data: bytes) -> None:
        assert len(data) > 5_000_000
        compile(data, "big.py", "exec")
        assert b"ModelWorkerBatch" not in data and b"model_worker_batch" not in data.replace(
            b"`model_worker_batch`", b""
        )
        assert data.count(b"def handler_") == 100 and data.count(b"Lorem ipsum") == 100 * 1800

    return Case(["."], 0, changed={"big.py": check})


def row_symlink_loop(root: Path, migrated: str) -> Case:
    os.symlink("loop_b.py", root / "loop_a.py")
    os.symlink("loop_a.py", root / "loop_b.py")
    os.symlink(".", root / "here")  # a folder loop as well: never followed
    (root / "ok.py").write_bytes(SAMPLE.encode())
    return Case(
        ["."],
        2,
        stderr=["loop_a.py", "loop_b.py", "skipped here: symbolic link to a folder; not followed"],
        changed={"ok.py": _check_migrated(migrated)},
    )


def row_broken_symlink(root: Path, migrated: str) -> Case:
    os.symlink("missing.py", root / "dangling.py")
    (root / "ok.py").write_bytes(SAMPLE.encode())
    return Case(["."], 2, stderr=["dangling.py: broken symbolic link"], changed={"ok.py": _check_migrated(migrated)})


def row_symlink_to_file_in_tree(root: Path, migrated: str) -> Case:
    # `alias.py -> real.py`: the real file is migrated once; the link must stay a link.
    (root / "real.py").write_bytes(SAMPLE.encode())
    os.symlink("real.py", root / "alias.py")
    return Case(
        ["."],
        0,
        stderr=["skipped alias.py: symbolic link; not followed (its target real.py is rewritten where it lives)"],
        changed={"real.py": _check_migrated(migrated)},
    )


def row_symlink_to_file_outside_tree(root: Path, migrated: str) -> Case:
    # `vendored.py -> ../outside/vendored.py`: the link must stay a link; the target is either migrated
    # through it or left alone with a reason, never orphaned by a copy.
    outside = root.parent / "outside"
    outside.mkdir()
    (outside / "vendored.py").write_bytes(SAMPLE.encode())
    os.symlink("../outside/vendored.py", root / "vendored.py")

    def extra() -> None:
        assert (root / "vendored.py").is_symlink(), "the symbolic link was replaced by a regular file"
        assert (outside / "vendored.py").read_bytes() in (SAMPLE.encode(), migrated.encode())

    return Case(
        ["."],
        0,
        stderr=["skipped vendored.py: symbolic link; not followed: its target", "uses the old API, rewrite it there"],
        extra=extra,
    )


# Special files: `os.stat` decides, nothing is opened; a run that blocks fails its row by the timeout.
SPECIAL_TIMEOUT = 120
FIFO_REASON = "is a FIFO (named pipe), not a regular file; not read"
SOCKET_REASON = "is a socket, not a regular file; not read"
LOOP_REASON = "symbolic link loop; not followed"


def _socket_file(path: Path) -> None:
    """A UNIX socket left on disk at `path` (bound from its folder: socket paths are short)."""
    previous = os.getcwd()
    os.chdir(path.parent)
    try:
        with socket.socket(socket.AF_UNIX) as server:
            server.bind(path.name)
    finally:
        os.chdir(previous)


def _special_tree(root: Path) -> None:
    os.mkfifo(root / "fifo.py")
    _socket_file(root / "sock.py")
    os.symlink("loop_b.py", root / "loop_a.py")
    os.symlink("loop_a.py", root / "loop_b.py")
    (root / "ok.py").write_bytes(SAMPLE.encode())


def row_fifo_walked(root: Path, migrated: str) -> Case:
    os.mkfifo(root / "fifo.py")
    (root / "ok.py").write_bytes(SAMPLE.encode())
    return Case(
        ["."],
        2,
        stderr=[f"error fifo.py: {FIFO_REASON}"],
        changed={"ok.py": _check_migrated(migrated)},
        subprocess=True,
        timeout=SPECIAL_TIMEOUT,
    )


def row_socket_walked(root: Path, migrated: str) -> Case:
    _socket_file(root / "sock.py")
    (root / "ok.py").write_bytes(SAMPLE.encode())
    return Case(
        ["."],
        2,
        stderr=[f"error sock.py: {SOCKET_REASON}"],
        changed={"ok.py": _check_migrated(migrated)},
        subprocess=True,
        timeout=SPECIAL_TIMEOUT,
    )


def row_special_files_walked_check(root: Path, migrated: str) -> Case:
    _special_tree(root)
    return Case(
        [".", "--check"],
        2,
        stderr=[f"fifo.py: {FIFO_REASON}", f"sock.py: {SOCKET_REASON}", f"loop_a.py: {LOOP_REASON}"],
        subprocess=True,
        timeout=SPECIAL_TIMEOUT,
    )


def row_special_files_named(root: Path, migrated: str) -> Case:
    # As pre-commit passes them: each path named, `--check`; the good file is still looked at.
    _special_tree(root)
    return Case(
        ["--check", "fifo.py", "sock.py", "loop_a.py", "ok.py"],
        2,
        stderr=[f"fifo.py: {FIFO_REASON}", f"sock.py: {SOCKET_REASON}", f"loop_a.py: {LOOP_REASON}", "MWB113 ok.py"],
        subprocess=True,
        timeout=SPECIAL_TIMEOUT,
    )


def row_special_files_named_in_place(root: Path, migrated: str) -> Case:
    _special_tree(root)
    return Case(
        ["fifo.py", "sock.py", "loop_a.py", "ok.py"],
        2,
        stderr=[f"fifo.py: {FIFO_REASON}", f"sock.py: {SOCKET_REASON}", f"loop_a.py: {LOOP_REASON}"],
        changed={"ok.py": _check_migrated(migrated)},
        subprocess=True,
        timeout=SPECIAL_TIMEOUT,
    )


def row_symlink_loop_named_alone(root: Path, migrated: str) -> Case:
    # The first path named decides the configuration: its loop must not end in a traceback there either.
    os.symlink("loop_b.py", root / "loop_a.py")
    os.symlink("loop_a.py", root / "loop_b.py")
    return Case(["loop_a.py"], 2, stderr=[f"error loop_a.py: {LOOP_REASON}"], subprocess=True, timeout=SPECIAL_TIMEOUT)


def row_character_device_named(root: Path, migrated: str) -> Case:
    (root / "ok.py").write_bytes(SAMPLE.encode())
    return Case(
        [os.devnull, "ok.py"],
        2,
        stderr=["null: is a character device, not a regular file; not read"],
        changed={"ok.py": _check_migrated(migrated)},
        subprocess=True,
        timeout=SPECIAL_TIMEOUT,
    )


def row_symlink_to_fifo(root: Path, migrated: str) -> Case:
    # A link is never followed: not even to look its target's bytes up for the reason.
    os.mkfifo(root / "fifo")
    os.symlink("fifo", root / "alias.py")
    (root / "ok.py").write_bytes(SAMPLE.encode())
    return Case(
        ["."],
        0,
        stderr=["skipped alias.py: symbolic link to a FIFO (named pipe); not followed"],
        changed={"ok.py": _check_migrated(migrated)},
        subprocess=True,
        timeout=SPECIAL_TIMEOUT,
    )


def row_fifo_named_gitignore(root: Path, migrated: str) -> Case:
    # Discovery reads `.gitignore` files too: one that is a FIFO configures nothing, and blocks nothing.
    os.mkfifo(root / ".gitignore")
    (root / "ok.py").write_bytes(SAMPLE.encode())
    return Case(["."], 0, changed={"ok.py": _check_migrated(migrated)}, subprocess=True, timeout=SPECIAL_TIMEOUT)


def _stdin_row(root: Path, make: Callable[[Path], None], reason: str) -> Case:
    make(root / "mod.py")
    return Case(
        ["-", "--stdin-filename", "mod.py"],
        2,
        stderr=[f"error mod.py: {reason}"],
        subprocess=True,
        timeout=SPECIAL_TIMEOUT,
        stdin=SAMPLE.encode(),
        stdout=b"",  # nothing on failure: an editor must not replace its buffer with an empty module
    )


def row_stdin_filename_fifo(root: Path, migrated: str) -> Case:
    return _stdin_row(root, os.mkfifo, FIFO_REASON)


def row_stdin_filename_symlink_loop(root: Path, migrated: str) -> Case:
    def loop(path: Path) -> None:
        os.symlink(path.name, path)

    return _stdin_row(root, loop, LOOP_REASON)


def row_stdin_filename_socket(root: Path, migrated: str) -> Case:
    return _stdin_row(root, _socket_file, SOCKET_REASON)


def row_verify_fifo(root: Path, migrated: str) -> Case:
    os.mkfifo(root / "fifo.py")
    return Case(
        ["fifo.py"], 2, stderr=[f"fifo.py: {FIFO_REASON}"], subprocess=True, timeout=SPECIAL_TIMEOUT, command="verify"
    )


def row_verify_symlink_loop(root: Path, migrated: str) -> Case:
    os.symlink("loop.py", root / "loop.py")
    return Case(
        ["loop.py"], 2, stderr=[f"loop.py: {LOOP_REASON}"], subprocess=True, timeout=SPECIAL_TIMEOUT, command="verify"
    )


def row_build_folder_is_skipped_and_listed(root: Path, migrated: str) -> Case:
    # pip's `operations/build/` is a real package: skipped as build output, as ruff does, but said.
    (root / "pkg" / "operations" / "build").mkdir(parents=True)
    (root / "pkg" / "operations" / "build" / "wheel.py").write_bytes(SAMPLE.encode())
    (root / "dist").mkdir()
    (root / "dist" / "copy.py").write_bytes(SAMPLE.encode())
    (root / "ok.py").write_bytes(SAMPLE.encode())
    return Case(
        ["."],
        0,
        stderr=[
            "skipped dist/: a folder named dist is taken for build output and not walked (as ruff does)",
            "skipped pkg/operations/build/: a folder named build is taken for build output and not walked",
        ],
        changed={"ok.py": _check_migrated(migrated)},
    )


def row_build_folder_named_is_walked(root: Path, migrated: str) -> Case:
    (root / "build").mkdir()
    (root / "build" / "wheel.py").write_bytes(SAMPLE.encode())
    return Case(["build"], 0, changed={"build/wheel.py": _check_migrated(migrated)})


def row_path_does_not_exist(root: Path, migrated: str) -> Case:
    (root / "ok.py").write_bytes(SAMPLE.encode())
    return Case(["missing_folder", "ok.py"], 2, stderr=["missing_folder: no such file or folder"])


def row_path_with_markup_does_not_exist(root: Path, migrated: str) -> Case:
    return Case(["missing[/x]"], 2, stderr=["missing[/x]: no such file or folder"])


def row_file_path_instead_of_folder(root: Path, migrated: str) -> Case:
    (root / "one.py").write_bytes(SAMPLE.encode())
    (root / "other.py").write_bytes(SAMPLE.encode())  # not named: left alone
    return Case(["one.py"], 0, changed={"one.py": _check_migrated(migrated)})


def row_path_through_a_file(root: Path, migrated: str) -> Case:
    (root / "one.py").write_bytes(SAMPLE.encode())
    return Case(["one.py/inner.py"], 2, stderr=["one.py/inner.py: no such file or folder"])


def row_directory_named_py(root: Path, migrated: str) -> Case:
    (root / "package.py").mkdir()
    (root / "package.py" / "inside.py").write_bytes(SAMPLE.encode())
    (root / "ok.py").write_bytes(SAMPLE.encode())
    # A folder is walked whatever its name: its module is migrated like any other.
    return Case(
        ["."], 0, changed={"ok.py": _check_migrated(migrated), "package.py/inside.py": _check_migrated(migrated)}
    )


def row_not_utf8(root: Path, migrated: str) -> Case:
    (root / "binary.py").write_bytes(SAMPLE.encode() + b"s = '\xff\xfe'\n")
    return Case(["."], 2, stderr=["binary.py: not valid utf-8 text"])


def row_bad_encoding_declaration(root: Path, migrated: str) -> Case:
    (root / "bogus.py").write_bytes(b"# -*- coding: no-such-codec -*-\n" + SAMPLE.encode())
    return Case(["."], 2, stderr=["bogus.py: bad encoding declaration"])


def row_error_path_with_markup(root: Path, migrated: str) -> Case:
    # Display path `odd[/x].py` (folder `odd[`, file `x].py`): printed with rich markup it is a closing tag.
    (root / "odd[").mkdir()
    (root / "odd[" / "x].py").write_bytes((SAMPLE + "print 'py2'\n").encode())
    return Case(["."], 2, stderr=["odd[/x].py: does not parse"])


def row_read_only_file(root: Path, migrated: str) -> Case:
    path = root / "readonly.py"
    path.write_bytes(SAMPLE.encode())
    path.chmod(0o444)

    def check(data: bytes) -> None:
        assert data == migrated.encode()
        assert stat.S_IMODE(path.stat().st_mode) == 0o444, oct(path.stat().st_mode)

    return Case(["."], 0, changed={"readonly.py": check})


def row_executable_mode_kept(root: Path, migrated: str) -> Case:
    path = root / "script.py"
    path.write_bytes(b"#!/usr/bin/env python3\n" + SAMPLE.encode())
    path.chmod(0o751)

    def check(data: bytes) -> None:
        assert data == b"#!/usr/bin/env python3\n" + migrated.encode()
        assert stat.S_IMODE(path.stat().st_mode) == 0o751

    return Case(["."], 0, changed={"script.py": check})


ROWS = {
    "empty-file": row_empty_file,
    "only-comments": row_only_comments,
    "crlf": row_crlf,
    "mixed-line-endings": row_mixed_line_endings,
    "cr-only-line-endings": row_cr_only_line_endings,
    "tabs": row_tabs,
    "bom": row_bom,
    "latin-1-declaration": row_latin1_declaration,
    "form-feeds": row_form_feeds,
    "form-feed-before-statement": row_form_feed_before_statement,
    "very-long-lines": row_very_long_lines,
    "deeply-nested-valid": row_deeply_nested_valid,
    "deeply-nested-beyond-python": row_deeply_nested_beyond_python,
    "python2-syntax": row_python2_syntax,
    "null-bytes": row_null_bytes,
    "five-mb-file": row_five_mb_file,
    "symlink-loop": row_symlink_loop,
    "broken-symlink": row_broken_symlink,
    "symlink-to-file-in-tree": row_symlink_to_file_in_tree,
    "symlink-to-file-outside-tree": row_symlink_to_file_outside_tree,
    "path-does-not-exist": row_path_does_not_exist,
    "path-with-markup-does-not-exist": row_path_with_markup_does_not_exist,
    "file-path-instead-of-folder": row_file_path_instead_of_folder,
    "path-through-a-file": row_path_through_a_file,
    "directory-named-py": row_directory_named_py,
    "not-utf8": row_not_utf8,
    "bad-encoding-declaration": row_bad_encoding_declaration,
    "error-path-with-markup": row_error_path_with_markup,
    "read-only-file": row_read_only_file,
    "executable-mode-kept": row_executable_mode_kept,
    "fifo-walked": row_fifo_walked,
    "socket-walked": row_socket_walked,
    "special-files-walked-check": row_special_files_walked_check,
    "special-files-named": row_special_files_named,
    "special-files-named-in-place": row_special_files_named_in_place,
    "symlink-loop-named-alone": row_symlink_loop_named_alone,
    "character-device-named": row_character_device_named,
    "symlink-to-fifo": row_symlink_to_fifo,
    "fifo-named-gitignore": row_fifo_named_gitignore,
    "stdin-filename-fifo": row_stdin_filename_fifo,
    "stdin-filename-socket": row_stdin_filename_socket,
    "stdin-filename-symlink-loop": row_stdin_filename_symlink_loop,
    "verify-fifo": row_verify_fifo,
    "verify-symlink-loop": row_verify_symlink_loop,
    "build-folder-skipped-and-listed": row_build_folder_is_skipped_and_listed,
    "build-folder-named-is-walked": row_build_folder_named_is_walked,
}
KNOWN_BUGS: dict[str, str] = {}


def _snapshot(root: Path) -> dict[str, tuple[str, bytes | str | None, int]]:
    """Every entry under `root` without following links: kind, content or link target, mode.
    A FIFO, socket or device is recorded by its kind, never opened (reading a FIFO would block)."""
    entries = {}
    for directory, dirnames, filenames in os.walk(root, followlinks=False):
        for name in dirnames + filenames:
            path = Path(directory) / name
            relative = path.relative_to(root).as_posix()
            info = path.lstat()
            if stat.S_ISLNK(info.st_mode):
                entries[relative] = ("link", os.readlink(path), 0)
            elif stat.S_ISDIR(info.st_mode):
                entries[relative] = ("dir", None, stat.S_IMODE(info.st_mode))
            elif stat.S_ISREG(info.st_mode):
                entries[relative] = ("file", path.read_bytes(), stat.S_IMODE(info.st_mode))
            else:
                entries[relative] = (
                    "special",
                    stat.S_IFMT(info.st_mode).to_bytes(4, "big"),
                    stat.S_IMODE(info.st_mode),
                )
    return entries


def _run(root: Path, case: Case) -> tuple[int, str, str]:
    args = [case.command, *case.args]
    if case.command == "rewrite" and "-" not in case.args:  # stdin refuses --jobs
        args += ["--jobs", "1", "--no-progress"]
    if case.subprocess:
        completed = subprocess.run(
            [sys.executable, "-m", "mwbmigrate", *args],
            cwd=root,
            input=case.stdin,
            capture_output=True,
            timeout=case.timeout,
        )
        if case.stdout is not None:
            assert completed.stdout == case.stdout, completed.stdout[:400]
        return (
            completed.returncode,
            completed.stdout.decode(errors="replace"),
            completed.stderr.decode(errors="replace"),
        )
    previous = os.getcwd()
    os.chdir(root)
    try:
        result = CliRunner().invoke(app, args, input=case.stdin)
    finally:
        os.chdir(previous)
    stderr = result.stderr
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        stderr += f"\n{type(result.exception).__name__}: {result.exception}"
    return result.exit_code, result.stdout, stderr


def _judge(root: Path, case: Case, before: dict, code: int, stdout: str, stderr: str) -> None:
    assert code == case.exit_code, f"exit {code}, expected {case.exit_code}\nstdout:\n{stdout}\nstderr:\n{stderr}"
    assert "Traceback" not in stderr, stderr
    for expected in case.stderr:
        assert expected.lower() in stderr.lower(), f"{expected!r} not in stderr:\n{stderr}"
    after = _snapshot(root)
    assert sorted(after) == sorted(before), "files appeared or disappeared"
    for relative, (kind, content, mode) in before.items():
        if relative in case.changed:
            assert after[relative][0] == "file"
            case.changed[relative](after[relative][1])
        else:
            assert after[relative] == (kind, content, mode), f"{relative} was modified"
    if case.extra is not None:
        case.extra()
    # Every row's error lines are one line each: "error <path>: <reason>".
    for line in stderr.splitlines():
        if line.startswith("error "):
            assert ": " in line


@pytest.mark.parametrize(
    "row",
    [
        pytest.param(name, marks=pytest.mark.xfail(strict=True, reason=KNOWN_BUGS[name]))
        if name in KNOWN_BUGS
        else name
        for name in ROWS
    ],
)
def test_bad_input(row, tmp_path, migrated):
    root = tmp_path / "tree"
    root.mkdir()
    case = ROWS[row](root, migrated)
    before = _snapshot(root)
    code, stdout, stderr = _run(root, case)
    _judge(root, case, before, code, stdout, stderr)


@pytest.mark.parametrize("name", sorted(VALID_BUT_DEEP))
def test_valid_but_deep_is_migrated_or_refused_cleanly(name, tmp_path, migrated):
    """Either migrated, or refused with a one-line reason (exit 2) and left byte-identical."""
    root = tmp_path / "tree"
    root.mkdir()
    tail = VALID_BUT_DEEP[name]
    (root / "deep.py").write_bytes((SAMPLE + tail).encode())
    compile(SAMPLE + tail, "deep.py", "exec")
    case = Case(["."], 0, subprocess=True)
    before = _snapshot(root)
    code, stdout, stderr = _run(root, case)
    if code == 0:
        case.changed = {"deep.py": _check_migrated(migrated, lambda b: b + tail.encode())}
    else:
        case.exit_code, case.stderr = 2, ["deep.py: "]
    _judge(root, case, before, code, stdout, stderr)


UNREADABLE_ARGS = {"walked": ["."], "named": ["secret.py", "ok.py"]}


@pytest.mark.parametrize("how", sorted(UNREADABLE_ARGS))
def test_unreadable_file_in_process(how, tmp_path, monkeypatch, migrated):
    """No read permission, simulated where a user without it meets it (the suite may run as root,
    where chmod 000 does not stop reads): `os.access` says no, `os.open` is refused. Named, it must
    not be a usage error that stops the other files (click's readability check uses os.access)."""
    root = tmp_path / "tree"
    root.mkdir()
    (root / "secret.py").write_bytes(SAMPLE.encode())
    (root / "ok.py").write_bytes(SAMPLE.encode())
    real_open, real_access = os.open, os.access

    def denied(path: object) -> bool:
        return isinstance(path, (str, os.PathLike)) and os.fspath(path).endswith("secret.py")

    def open_(path, flags, *args, **kwargs):
        if denied(path):
            raise PermissionError(13, "Permission denied", os.fspath(path))
        return real_open(path, flags, *args, **kwargs)

    def access(path, mode, *args, **kwargs):
        return False if denied(path) else real_access(path, mode, *args, **kwargs)

    before = _snapshot(root)
    monkeypatch.setattr(os, "open", open_)
    monkeypatch.setattr(os, "access", access)
    case = Case(UNREADABLE_ARGS[how], 2, changed={"ok.py": _check_migrated(migrated)})
    code, stdout, stderr = _run(root, case)
    monkeypatch.undo()
    _judge(root, case, before, code, stdout, stderr)
    # The reason is the read's, one line: not a boxed usage error, nor the write's "while writing".
    assert "error secret.py: permission denied" in stderr.splitlines(), stderr


def _can_read_anyway() -> bool:
    return hasattr(os, "geteuid") and os.geteuid() == 0


@pytest.mark.parametrize("how", sorted(UNREADABLE_ARGS))
def test_unreadable_file_chmod(how, tmp_path, migrated):
    root = tmp_path / "tree"
    root.mkdir()
    (root / "secret.py").write_bytes(SAMPLE.encode())
    (root / "ok.py").write_bytes(SAMPLE.encode())
    (root / "secret.py").chmod(0)
    try:
        case = Case(UNREADABLE_ARGS[how], 2, subprocess=True, timeout=SPECIAL_TIMEOUT)
        code, stdout, stderr = _run(root, case)
        # Whoever runs it, the other file is migrated and nothing ends in a usage error or traceback.
        assert (root / "ok.py").read_bytes() == migrated.encode()
        assert "Traceback" not in stderr and "Usage:" not in stderr, stderr
        if _can_read_anyway():
            pytest.skip(
                "root reads a chmod-000 file anyway (checked: the run completes); the refusal itself is "
                "covered by test_unreadable_file_in_process"
            )
        assert code == 2, stderr
        assert "error secret.py: permission denied" in stderr.splitlines(), stderr
    finally:
        (root / "secret.py").chmod(0o644)
    assert (root / "secret.py").read_bytes() == SAMPLE.encode()
