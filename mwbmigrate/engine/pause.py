"""A test-only hook: stop a run at a named point until a signal arrives, so that signal and fault
tests interrupt the phase they mean to, however busy the machine is (no sleep decides an outcome).

    MWBMIGRATE_TEST_PAUSE_AT=PHASE:N:FLAG

The N-th time a process reaches the point PHASE (`transform`: before a file's transform; `write`: a
temporary file is complete, before it replaces its target), it creates the file FLAG and waits for a
signal, unless FLAG exists already (another process of the run paused first). Unset (every normal run), a point costs one environment lookup.
"""

from __future__ import annotations

import os
import signal
from pathlib import Path

PAUSE_ENV = "MWBMIGRATE_TEST_PAUSE_AT"
_reached: dict[str, int] = {}


def pause_point(phase: str) -> None:
    setting = os.environ.get(PAUSE_ENV)
    if not setting:
        return
    wanted, count, flag = setting.split(":", 2)
    if wanted != phase:
        return
    _reached[phase] = _reached.get(phase, 0) + 1
    if _reached[phase] != int(count):
        return
    try:
        Path(flag).open("x").close()  # one pause per run: a pool worker arriving later goes on
    except FileExistsError:
        return
    while True:  # a signal's handler raises (SIGINT) or the signal ends the process (SIGKILL, SIGTERM)
        signal.pause()
