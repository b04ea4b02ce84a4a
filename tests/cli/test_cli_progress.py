"""Progress in a log: a plain line every few seconds when stderr is not a terminal, none for a
short run; and the global --version. The clock is the test's own, so nothing here depends on timing."""

from __future__ import annotations

import pytest

from mwbmigrate import __version__
from mwbmigrate.log_progress import ProgressLines


class _Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_a_line_once_the_interval_has_passed_and_not_before() -> None:
    clock, lines = _Clock(), []
    progress = ProgressLines(40, lines.append, clock=clock, every=5.0)
    clock.now = 104.9
    progress(10)
    assert lines == []
    clock.now = 105.0
    progress(10)
    clock.now = 106.0
    progress(5)
    clock.now = 112.4
    progress(15)
    assert lines == ["rewrite: 20/40 files (50%), 5 s", "rewrite: 40/40 files (100%), 12 s"]


def test_a_short_run_prints_nothing() -> None:
    clock, lines = _Clock(), []
    progress = ProgressLines(3, lines.append, clock=clock)
    for _ in range(3):
        progress(1)
    assert lines == []


def test_the_cli_hands_a_log_the_line_progress(kit, monkeypatch: pytest.MonkeyPatch) -> None:
    """Stderr is not a terminal under the runner: the factory gives lines, not a bar (a clock that
    jumps a minute per call makes every file print)."""
    import mwbmigrate.log_progress as log_progress

    monkeypatch.delenv("MWBMIGRATE_NO_PROGRESS", raising=False)
    ticks = iter(float(60 * n) for n in range(10_000))
    monkeypatch.setattr(log_progress, "monotonic", lambda: next(ticks))
    tree = kit.tree()
    result = kit.invoke("rewrite", tree, "--dry-run", "--no-cache", "--no-contract-check", "--jobs", "1")
    assert result.exit_code == 0, result.stderr
    progress = [line for line in result.stderr.splitlines() if line.startswith("rewrite: ")]
    assert progress and progress[-1].startswith("rewrite: ") and " files (100%), " in progress[-1]
    quiet = kit.invoke(
        "rewrite", tree, "--dry-run", "--no-cache", "--no-contract-check", "--jobs", "1", "--no-progress"
    )
    assert not [line for line in quiet.stderr.splitlines() if line.startswith("rewrite: ")]


def test_version_flag(kit) -> None:
    result = kit.invoke("--version")
    assert result.exit_code == 0
    assert result.stdout == f"mwbmigrate {__version__}\n"
