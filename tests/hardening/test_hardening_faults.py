"""Fault injection: failed writes and signals during a run over many files.

After any of them every file is either its original bytes or its complete new text (never a mix or a
truncation), no `*.mwbmigrate.tmp` file is left behind, the run reports the failure (exit 2 with a
reason), and a re-run finishes the job.

Failed writes are simulated in-process (monkeypatched `os.replace`, `os.fdopen` writes, `os.fsync`).
Signals go to a subprocess running the real CLI, stopped by the test-only hook of
mwbmigrate.engine.pause at the Nth file of the phase (after the temporary file is complete, or before a
transform): it drops a flag file and waits there, so the signal lands inside that phase whatever the
machine's load; no sleep decides an outcome.
"""

from __future__ import annotations

import errno
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
from typer.testing import CliRunner

from mwbmigrate.cli import app
from mwbmigrate.engine.pause import PAUSE_ENV

ORIGINAL = textwrap.dedent(
    """\
    from sglang.srt.managers.schedule_batch import ModelWorkerBatch


    class Worker:
        def forward(self, model_worker_batch: ModelWorkerBatch):
            return model_worker_batch.seq_lens

        def step(self, batch):
            model_worker_batch = batch.get_model_worker_batch()
            return self.forward(model_worker_batch)
    """
).encode()
UNRELATED = b"def untouched():\n    return 1\n"
TEMP_GLOB = "*mwbmigrate.tmp*"


@pytest.fixture(scope="module")
def expected(tmp_path_factory) -> bytes:
    """The complete new text of ORIGINAL, from a clean in-place run."""
    root = tmp_path_factory.mktemp("expected")
    (root / "one.py").write_bytes(ORIGINAL)
    result = CliRunner().invoke(app, ["rewrite", str(root), "--jobs", "1", "--no-progress"])
    assert result.exit_code == 0, result.output
    new = (root / "one.py").read_bytes()
    assert new != ORIGINAL and b"ScheduleBatch" in new
    compile(new, "one.py", "exec")
    return new


def make_tree(root: Path, count: int) -> list[Path]:
    files = []
    for index in range(count):
        path = root / "pkg" / f"sub{index % 3}" / f"mod_{index:03d}.py"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(ORIGINAL)
        files.append(path)
    (root / "pkg" / "unrelated.py").write_bytes(UNRELATED)
    return files


def rewrite(root: Path, *extra: str):
    return CliRunner().invoke(app, ["rewrite", str(root), "--jobs", "1", "--no-progress", *extra])


def assert_consistent(root: Path, files: list[Path], expected: bytes) -> tuple[int, int]:
    """Every file is its original bytes or its full new text; no temporary file anywhere. Returns (old, new)."""
    old = new = 0
    for path in files:
        data = path.read_bytes()
        assert data in (ORIGINAL, expected), f"{path.name} is neither original nor complete new text: {data[:200]!r}"
        old += data == ORIGINAL
        new += data == expected
    assert (root / "pkg" / "unrelated.py").read_bytes() == UNRELATED
    leftovers = sorted(str(p) for p in root.rglob(TEMP_GLOB))
    assert not leftovers, f"temporary files left behind: {leftovers}"
    return old, new


def assert_rerun_finishes(root: Path, files: list[Path], expected: bytes) -> None:
    again = rewrite(root)
    assert again.exit_code == 0, again.output
    assert assert_consistent(root, files, expected) == (0, len(files))


# --- failed writes, in-process -----------------------------------------------------------------------------


def _failing_replace(monkeypatch, error: OSError, fail_on: set[int]):
    real = os.replace
    calls = {"n": 0}

    def replace(src, dst, *args, **kwargs):
        calls["n"] += 1
        if calls["n"] in fail_on:
            raise error
        return real(src, dst, *args, **kwargs)

    monkeypatch.setattr(os, "replace", replace)
    return calls


FILES = 6


@pytest.mark.parametrize(
    "error, fail_on, message",
    [
        pytest.param(
            OSError(errno.ENOSPC, "No space left on device"), {4}, "No space left on device", id="enospc-once"
        ),
        pytest.param(
            OSError(errno.ENOSPC, "No space left on device"),
            set(range(3, 100)),
            "No space left on device",
            id="enospc-from-the-3rd-file-on",
        ),
        pytest.param(
            PermissionError(errno.EACCES, "Permission denied"),
            {1, 3, 5},
            "permission denied",
            id="permission-denied-every-other",
        ),
    ],
)
def test_os_replace_failure(tmp_path, monkeypatch, expected, error, fail_on, message):
    files = make_tree(tmp_path, FILES)
    calls = _failing_replace(monkeypatch, error, fail_on)
    result = rewrite(tmp_path)
    failed = len(fail_on & set(range(1, FILES + 1)))
    assert calls["n"] == FILES, "every changed file is still attempted after a failure"
    assert result.exit_code == 2, result.output
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    errors = [line for line in result.stderr.splitlines() if line.startswith("error ")]
    assert len(errors) == failed, result.stderr
    assert all(message.lower() in line.lower() and "mod_" in line for line in errors), errors
    assert assert_consistent(tmp_path, files, expected) == (failed, FILES - failed)
    monkeypatch.undo()
    assert_rerun_finishes(tmp_path, files, expected)


def test_disk_full_halfway_through_a_write(tmp_path, monkeypatch, expected):
    """The temporary file gets half its bytes, then ENOSPC: the target keeps its original bytes."""
    files = make_tree(tmp_path, FILES)
    real_fdopen = os.fdopen
    state = {"writes": 0}

    class HalfWriter:
        def __init__(self, handle):
            self._handle = handle

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            self._handle.close()
            return False

        def write(self, data):
            state["writes"] += 1
            if state["writes"] % 3 == 0:
                self._handle.write(data[: len(data) // 2])
                self._handle.flush()
                raise OSError(errno.ENOSPC, "No space left on device")
            return self._handle.write(data)

        def __getattr__(self, name):
            return getattr(self._handle, name)

    def fdopen(fd, mode="r", *args, **kwargs):
        handle = real_fdopen(fd, mode, *args, **kwargs)
        return HalfWriter(handle) if "w" in mode else handle

    monkeypatch.setattr(os, "fdopen", fdopen)
    result = rewrite(tmp_path)
    assert result.exit_code == 2, result.output
    assert "No space left on device" in result.stderr
    failed = FILES // 3  # every third write fails
    assert assert_consistent(tmp_path, files, expected) == (failed, FILES - failed)
    monkeypatch.undo()
    assert_rerun_finishes(tmp_path, files, expected)


def test_fsync_failure(tmp_path, monkeypatch, expected):
    files = make_tree(tmp_path, FILES)
    real_fsync = os.fsync
    state = {"n": 0}

    def fsync(fd):
        state["n"] += 1
        if state["n"] == 2:
            raise OSError(errno.EIO, "Input/output error")
        return real_fsync(fd)

    monkeypatch.setattr(os, "fsync", fsync)
    result = rewrite(tmp_path)
    assert result.exit_code == 2, result.output
    assert "Input/output error" in result.stderr
    assert assert_consistent(tmp_path, files, expected) == (1, FILES - 1)
    monkeypatch.undo()
    assert_rerun_finishes(tmp_path, files, expected)


def test_temporary_file_cannot_be_created(tmp_path, monkeypatch, expected):
    """A read-only folder (simulated: the suite may run as root): mkstemp fails, the target is untouched."""
    import tempfile

    files = make_tree(tmp_path, FILES)
    real_mkstemp = tempfile.mkstemp
    state = {"n": 0}

    def mkstemp(*args, **kwargs):
        state["n"] += 1
        if state["n"] == 2:
            raise PermissionError(errno.EACCES, "Permission denied", kwargs.get("dir"))
        return real_mkstemp(*args, **kwargs)

    monkeypatch.setattr(tempfile, "mkstemp", mkstemp)
    result = rewrite(tmp_path)
    assert result.exit_code == 2, result.output
    assert "permission denied" in result.stderr.lower()
    assert assert_consistent(tmp_path, files, expected) == (1, FILES - 1)
    monkeypatch.undo()
    assert_rerun_finishes(tmp_path, files, expected)


def test_file_edited_during_the_run_is_not_overwritten(tmp_path, monkeypatch, expected):
    """The user saves a file between the transform and the write: their edit wins, the file is reported."""
    import mwbmigrate.cli as cli

    files = make_tree(tmp_path, 4)
    edited = ORIGINAL + b"# saved by the user meanwhile\n"
    real_run = cli.run_rewrite

    def run_then_edit(*args, **kwargs):
        summary = real_run(*args, **kwargs)
        files[1].write_bytes(edited)
        return summary

    monkeypatch.setattr(cli, "run_rewrite", run_then_edit)
    result = rewrite(tmp_path)
    assert result.exit_code == 2, result.output
    assert "changed on disk during the run" in result.stderr
    assert files[1].read_bytes() == edited
    assert all(p.read_bytes() == expected for i, p in enumerate(files) if i != 1)
    assert not list(tmp_path.rglob(TEMP_GLOB))


def test_failed_write_in_check_and_dry_run_modes_writes_nothing(tmp_path, monkeypatch):
    """--check and --dry-run never reach the writer, so a broken os.replace cannot matter."""
    files = make_tree(tmp_path, 3)

    def boom(*args, **kwargs):
        raise AssertionError("os.replace called in a mode that writes nothing")

    monkeypatch.setattr(os, "replace", boom)
    assert rewrite(tmp_path, "--check").exit_code == 1
    assert rewrite(tmp_path, "--dry-run").exit_code == 0
    assert all(p.read_bytes() == ORIGINAL for p in files)


# --- signals, to a subprocess running the real CLI -----------------------------------------------------------

SIGNAL_FILES = 8


# `python -m mwbmigrate` with SIGINT handled as in a terminal (KeyboardInterrupt), in the run and in
# the pool workers it forks, even when this test process got SIGINT ignored: a background job or
# `nohup` ignores it, an ignored signal stays ignored across exec, and Python then never installs its
# handler, so the run would wait at its pause point for ever.
_AS_IN_A_TERMINAL = (
    "import runpy, signal, sys; signal.signal(signal.SIGINT, signal.default_int_handler); "
    "runpy.run_module('mwbmigrate', run_name='__main__', alter_sys=True)"
)


def _run_until_paused_then_signal(
    tmp_path: Path,
    phase: str,
    signum: int,
    after: int,
    jobs: int = 1,
    group: bool = False,
) -> subprocess.CompletedProcess:
    """The run stops at the `after`-th arrival at `phase` (mwbmigrate.engine.pause) and waits there for
    the signal: it cannot finish first, however slow or busy the machine."""
    flag = tmp_path / "flag"
    environment = {**os.environ, PAUSE_ENV: f"{phase}:{after}:{flag}"}
    process = subprocess.Popen(
        [
            sys.executable,
            "-c",
            _AS_IN_A_TERMINAL,
            "rewrite",
            str(tmp_path / "pkg"),
            "--jobs",
            str(jobs),
            "--no-progress",
            # The pause point is in the transform: an entry an earlier test left for the same tree
            # (the cache is shared wherever a tree sits) would answer without reaching it.
            "--no-cache",
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        start_new_session=group,
        env=environment,
    )
    while not flag.exists():
        if process.poll() is not None:
            out, err = process.communicate()
            pytest.fail(f"run ended before the pause point: rc={process.returncode}\n{out.decode()}\n{err.decode()}")
        time.sleep(0.01)  # polling only: the run waits at the pause point for as long as it takes
    if group:  # like Ctrl-C in a terminal: the whole foreground process group, workers included
        os.killpg(process.pid, signum)
    else:
        process.send_signal(signum)
    try:
        out, err = process.communicate(timeout=120)
    except subprocess.TimeoutExpired:
        # The whole group: a pool worker left behind would hold the pipes open, and read them forever.
        os.killpg(process.pid, signal.SIGKILL) if group else process.kill()
        out, err = process.communicate(timeout=60)
        pytest.fail(f"the run did not stop after {signal.Signals(signum).name}\n{err.decode()}")
    completed = subprocess.CompletedProcess(process.args, process.returncode, out, err)
    completed.pid = process.pid  # type: ignore[attr-defined]  # the process group id when group=True
    return completed


@pytest.mark.parametrize("phase", ["transform", "write"])
def test_sigint(tmp_path, expected, phase):
    files = make_tree(tmp_path, SIGNAL_FILES)
    completed = _run_until_paused_then_signal(tmp_path, phase, signal.SIGINT, after=3)
    assert completed.returncode == 130, (completed.returncode, completed.stderr[-500:])  # 128 + SIGINT, not 0/1/2
    assert b"Traceback" not in completed.stderr, completed.stderr.decode()
    old, new = assert_consistent(tmp_path, files, expected)
    if phase == "transform":
        assert (old, new) == (SIGNAL_FILES, 0), "nothing is written before every file was transformed"
    else:
        assert (old, new) == (SIGNAL_FILES - 2, 2), "the third write was interrupted, the two before it are whole"
    assert_rerun_finishes(tmp_path, files, expected)


def test_ctrl_c_with_a_process_pool(tmp_path, expected):
    """SIGINT to the process group while pool workers transform: the run stops, writes nothing, leaves no worker."""
    files = make_tree(tmp_path, SIGNAL_FILES)
    completed = _run_until_paused_then_signal(tmp_path, "transform", signal.SIGINT, after=2, jobs=2, group=True)
    assert completed.returncode == 130, (completed.returncode, completed.stderr[-500:])
    assert assert_consistent(tmp_path, files, expected) == (SIGNAL_FILES, 0)
    deadline = time.monotonic() + 120  # generous: a busy machine is slow to reap, never a reason to fail
    while True:
        try:
            os.killpg(completed.pid, 0)
        except ProcessLookupError:
            break  # no process of the run's group is left
        assert time.monotonic() < deadline, "pool workers outlived the interrupted run"
        time.sleep(0.1)
    assert_rerun_finishes(tmp_path, files, expected)


@pytest.mark.parametrize("phase", ["transform", "write"])
def test_sigkill_leaves_whole_files(tmp_path, expected, phase):
    """SIGKILL cannot be caught: files must still be whole; the re-run finishes the job."""
    files = make_tree(tmp_path, SIGNAL_FILES)
    completed = _run_until_paused_then_signal(tmp_path, phase, signal.SIGKILL, after=3)
    assert completed.returncode == -signal.SIGKILL
    for path in files:
        assert path.read_bytes() in (ORIGINAL, expected)
    news = sum(p.read_bytes() == expected for p in files)
    if phase == "transform":
        assert news == 0
    else:
        assert news == 2, news
    again = rewrite(tmp_path)
    assert again.exit_code == 0, again.output
    assert all(p.read_bytes() == expected for p in files)
    assert (tmp_path / "pkg" / "unrelated.py").read_bytes() == UNRELATED


def test_sigkill_in_write_phase_leaves_no_temporary_file_after_rerun(tmp_path, expected):
    files = make_tree(tmp_path, SIGNAL_FILES)
    completed = _run_until_paused_then_signal(tmp_path, "write", signal.SIGKILL, after=3)
    assert completed.returncode == -signal.SIGKILL
    orphans = sorted(p.name for p in tmp_path.rglob(TEMP_GLOB))
    assert orphans, "the kill landed while a temporary file existed"
    assert rewrite(tmp_path).exit_code == 0
    assert_consistent(tmp_path, files, expected)
    assert not sorted(tmp_path.rglob(TEMP_GLOB)), "the re-run removes what the killed run left"
