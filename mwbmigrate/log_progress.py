"""Progress for a log: when stderr is not a terminal (a CI job, `2> file`), a run prints a plain line
every few seconds instead of a bar, so a long run shows it is alive and how far it got. A short run
prints nothing."""

from __future__ import annotations

from time import monotonic
from typing import Callable

PROGRESS_LINE_SECONDS = 5.0


class ProgressLines:
    """Counts finished files; writes `rewrite: done/total files (p%), t s` once at least
    `every` seconds have passed since the start or the last line."""

    def __init__(
        self,
        total: int,
        write: Callable[[str], None],
        *,
        clock: Callable[[], float] | None = None,
        every: float = PROGRESS_LINE_SECONDS,
    ) -> None:
        self.total = total
        self.done = 0
        self._write = write
        self._clock = clock or monotonic
        self._every = every
        self._start = self._last = self._clock()

    def __call__(self, finished: int) -> None:
        self.done += finished
        now = self._clock()
        if now - self._last < self._every:
            return
        self._last = now
        percent = 100 * self.done // self.total if self.total else 100
        self._write(f"rewrite: {self.done}/{self.total} files ({percent}%), {now - self._start:.0f} s")
