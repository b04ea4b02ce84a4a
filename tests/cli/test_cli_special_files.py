"""Issue 23: never hang, never a traceback. A FIFO, a socket or a symbolic link loop, named or met in
a walk, gets its one-line reason and exit 2 while the good file is migrated; a file swapped for a
FIFO, or removed, after discovery cannot block the read; folders named `build`/`dist` are skipped
and listed. Every run that could block is a subprocess with a timeout: a hang fails the test, it
never stops the suite. No sleeps: the swaps happen at a fixed point (right after discovery)."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

OLD = textwrap.dedent(
    """\
    from sglang.srt.managers.schedule_batch import ModelWorkerBatch


    def forward(model_worker_batch: ModelWorkerBatch):
        return model_worker_batch.seq_lens
    """
).encode()
TIMEOUT = 120  # a safety net only: each run takes seconds, one that blocks on a FIFO never ends
REASONS = {
    "fifo.py": "is a FIFO (named pipe), not a regular file; not read",
    "sock.py": "is a socket, not a regular file; not read",
    "loop_a.py": "symbolic link loop; not followed",
}

pytestmark = pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="FIFOs and UNIX sockets need a POSIX system")


def _mwbmigrate(cwd: Path, *args: str, code: str | None = None) -> subprocess.CompletedProcess[str]:
    """`python -m mwbmigrate ARGS` (or the driver `code`, given ARGS as sys.argv[1:]) in `cwd`."""
    command = [sys.executable, "-m", "mwbmigrate"] if code is None else [sys.executable, "-c", code]
    return subprocess.run(
        [*command, *args], cwd=cwd, capture_output=True, text=True, timeout=TIMEOUT, stdin=subprocess.DEVNULL
    )


def _special_tree(root: Path) -> Path:
    root.mkdir()
    os.mkfifo(root / "fifo.py")
    previous = os.getcwd()
    os.chdir(root)  # a UNIX socket's path is short: bind it from its folder
    try:
        with socket.socket(socket.AF_UNIX) as server:
            server.bind("sock.py")
    finally:
        os.chdir(previous)
    os.symlink("loop_b.py", root / "loop_a.py")
    os.symlink("loop_a.py", root / "loop_b.py")
    (root / "good.py").write_bytes(OLD)
    return root


def _assert_reasons(stderr: str, names: list[str]) -> None:
    lines = stderr.splitlines()
    for name in names:
        assert f"error {name}: {REASONS[name]}" in lines, stderr
    assert "Traceback" not in stderr and "Usage:" not in stderr, stderr


MODES = {"check": ["--check"], "dry-run": ["--dry-run"], "in-place": []}


@pytest.mark.parametrize("how", ["walked", "named"])
@pytest.mark.parametrize("mode", sorted(MODES))
def test_special_files_get_their_reason_and_the_good_file_is_migrated(tmp_path, mode, how):
    root = _special_tree(tmp_path / "tree")
    paths = ["."] if how == "walked" else ["fifo.py", "sock.py", "loop_a.py", "good.py"]
    result = _mwbmigrate(root, "rewrite", *paths, *MODES[mode], "--no-progress", "--no-cache")
    assert result.returncode == 2, result.stderr
    _assert_reasons(result.stderr, ["fifo.py", "sock.py", "loop_a.py"])
    migrated = (root / "good.py").read_bytes()
    if mode == "in-place":
        assert b"ScheduleBatch" in migrated and b"ModelWorkerBatch" not in migrated
    else:
        assert migrated == OLD
        assert ("+def forward(batch: ScheduleBatch)" in result.stdout) is (mode == "dry-run"), result.stdout
    # Nothing was put in place of the special files.
    assert (root / "fifo.py").is_fifo() and (root / "sock.py").is_socket() and (root / "loop_a.py").is_symlink()


def test_the_json_report_lists_each_special_file_as_failed(tmp_path):
    root = _special_tree(tmp_path / "tree")
    result = _mwbmigrate(root, "rewrite", ".", "--check", "--format", "json", "--no-cache")
    assert result.returncode == 2, result.stderr
    files = {f["path"]: f for f in json.loads(result.stdout)["files"]}
    assert {name: files[name]["error"] for name in REASONS} == REASONS
    assert files["loop_b.py"]["error"] == REASONS["loop_a.py"]
    assert files["good.py"]["status"] == "changed"


# The race: discovery has listed the tree; the file is then swapped before the run reads it.
SWAP_AFTER_DISCOVERY = textwrap.dedent(
    """\
    import os, sys
    import mwbmigrate.cli as cli

    victim, swap = sys.argv[1], sys.argv[2]
    discover = cli.discover

    def discover_then_swap(*args, **kwargs):
        found = discover(*args, **kwargs)
        os.unlink(victim)
        if swap == "fifo":
            os.mkfifo(victim)
        return found

    cli.discover = discover_then_swap
    sys.argv = ["mwbmigrate", *sys.argv[3:]]
    cli.main()
    """
)


@pytest.mark.parametrize(
    "swap, reason",
    [("fifo", "is a FIFO (named pipe), not a regular file; not read"), ("gone", "no longer exists")],
)
def test_a_file_swapped_or_removed_after_discovery_gets_a_reason(tmp_path, swap, reason):
    root = tmp_path / "tree"
    root.mkdir()
    (root / "victim.py").write_bytes(OLD)
    (root / "good.py").write_bytes(OLD)
    result = _mwbmigrate(
        root, "victim.py", swap, "rewrite", ".", "--no-progress", "--no-cache", code=SWAP_AFTER_DISCOVERY
    )
    assert result.returncode == 2, result.stderr
    assert any(line.startswith(f"error victim.py: {reason}") for line in result.stderr.splitlines()), result.stderr
    assert b"ScheduleBatch" in (root / "good.py").read_bytes()
    assert (root / "victim.py").is_fifo() is (swap == "fifo")


# The narrowest race: `os.stat` saw a regular file, a FIFO is there by the time it is opened.
STAT_THEN_FIFO = textwrap.dedent(
    """\
    import os, sys
    from mwbmigrate.engine.source import UnreadableFile, read_regular_file

    os.mkfifo("swapped.py")
    with open("regular.py", "wb"):
        pass
    stat = os.stat
    regular = stat("regular.py")
    os.stat = lambda path, *args, **kwargs: regular if os.fspath(path) == "swapped.py" else stat(path, *args, **kwargs)
    try:
        read_regular_file("swapped.py")
    except UnreadableFile as error:
        print(error)
    """
)


def test_the_read_checks_the_opened_descriptor_so_a_fifo_swapped_in_cannot_block(tmp_path):
    # Without O_NONBLOCK the open itself would wait for a writer (the timeout would fail the test).
    result = _mwbmigrate(tmp_path, code=STAT_THEN_FIFO)
    assert result.returncode == 0, result.stderr
    assert result.stdout == "is a FIFO (named pipe), not a regular file; not read\n"


def test_a_symbolic_link_is_read_through_only_when_asked(tmp_path):
    from mwbmigrate.engine.source import UnreadableFile, read_regular_file

    (tmp_path / "real.py").write_bytes(OLD)
    os.symlink("real.py", tmp_path / "alias.py")
    with pytest.raises(UnreadableFile, match="^is a symbolic link; not followed$"):
        read_regular_file(tmp_path / "alias.py")
    assert read_regular_file(tmp_path / "alias.py", follow_symlinks=True) == OLD


def test_verify_reports_special_files_in_its_tree_and_finishes(tmp_path):
    root = _special_tree(tmp_path / "tree")
    (root / "good.py").write_bytes(b"x = 1\n")
    result = _mwbmigrate(root, "verify", ".", "--gpu", "off", "--format", "json", "-k", "no_such_test")
    static = json.loads(result.stdout)["static"]
    assert result.returncode != 0 and not static["passed"]
    assert static["files_checked"] == 1
    problems = set(static["problems"])
    assert {f"{name}: {reason}" for name, reason in REASONS.items()} <= problems, problems


# --- build folders --------------------------------------------------------------------------------------


def _build_tree(root: Path) -> Path:
    for relative in ("pip/operations/build/wheel.py", "dist/copy.py", "ok.py"):
        (root / relative).parent.mkdir(parents=True, exist_ok=True)
        (root / relative).write_bytes(OLD)
    (root / ".gitignore").write_bytes(b"ignored/\n")
    (root / "ignored" / "build").mkdir(parents=True)  # ignore rules first: ignored, so not listed
    return root


BUILD_REASON = "a folder named {} is taken for build output and not walked (as ruff does); name it on the command line to migrate it"


def test_skipped_build_folders_are_listed_in_json_and_markdown_but_not_as_files(kit):
    root = _build_tree(kit.tmp_path / "tree")
    document = json.loads(kit.invoke("rewrite", root, "--dry-run", "--format", "json").stdout)
    assert document["skipped_folders"] == [
        {"path": "dist/", "reason": BUILD_REASON.format("dist")},
        {"path": "pip/operations/build/", "reason": BUILD_REASON.format("build")},
    ]
    assert {f["path"] for f in document["files"]} == {"ok.py"}
    markdown = kit.invoke("rewrite", root, "--dry-run", "--format", "markdown").stdout
    assert "### Folders skipped" in markdown
    assert f"- `pip/operations/build/`: {BUILD_REASON.format('build')}" in markdown
    text = kit.invoke("rewrite", root, "--check")
    assert kit.flat(f"skipped pip/operations/build/: {BUILD_REASON.format('build')}") in kit.flat(text.stderr)
    assert "ignored/build" not in text.stderr
    assert (root / "pip" / "operations" / "build" / "wheel.py").read_bytes() == OLD
