"""Keep a batch's objects alive for ``depth`` iterations (SGLang 0.5.13 ``record_batch_in_overlap``).

Under overlap scheduling the forward of iteration N runs on the forward stream while
the scheduler already prepares N+1. A GPU tensor whose last Python reference goes
away in between returns its block to the caching allocator, which can hand it to the
next allocation on the schedule stream while the forward still reads it. Upstream
keeps ``[batch, field values]`` in a two-slot ring on the scheduler: the loop
synchronises forward N before record N+2 overwrites its slot, so two slots are enough.

:class:`BatchRecordRing` is that ring as an object of its own. No torch and no sglang
import.
"""

from __future__ import annotations

from typing import Any, Optional

from .isolation import snapshot_batch

__all__ = ["BatchRecordRing", "EmptyRingError"]


class EmptyRingError(RuntimeError):
    """``keep_alive`` was called before anything was recorded."""


class BatchRecordRing:
    """Ring of ``depth`` slots that pins what each recorded batch references.

    Contract:

    * ``record(batch)`` first advances the slot index (``(index + 1) % depth``, so a
      fresh ring writes slot 1 first, as upstream), then stores the list
      ``[batch, snapshot]`` there, dropping whatever that slot held. ``snapshot`` is a
      ``{name: value}`` dict of every attribute the batch has at that moment (dataclass
      fields included; see ``snapshot_batch``), so later rebinds on the batch do not
      release the recorded values.
    * An object recorded at record N is therefore still referenced after records
      N+1 .. N+depth-1 and released by record N+depth (unless referenced elsewhere).
    * ``keep_alive(*refs)`` appends extra references to the *current* slot (the one the
      last ``record`` wrote), released together with it; upstream's
      ``batch_record_buf[ct].extend(extra_keep_alive_refs)``.

    The ring only holds Python references; it never frees, copies or synchronises.
    Not thread-safe; it belongs to one scheduler loop.
    """

    __slots__ = ("_depth", "_slots", "_index")

    def __init__(self, depth: int = 2) -> None:
        if isinstance(depth, bool) or not isinstance(depth, int) or depth < 1:
            raise ValueError(f"depth must be an int >= 1, not {depth!r}")
        self._depth = depth
        self._slots: list[Optional[list[Any]]] = [None] * depth
        self._index = 0

    @property
    def depth(self) -> int:
        """Number of slots: how many records an entry survives, itself included."""
        return self._depth

    @property
    def index(self) -> int:
        """Slot written by the last ``record`` (0 on a fresh ring, before any record)."""
        return self._index

    @property
    def slots(self) -> tuple[Optional[list[Any]], ...]:
        """The slots themselves (``None`` or ``[batch, snapshot, *extra refs]``), in slot order."""
        return tuple(self._slots)

    @property
    def current(self) -> Optional[list[Any]]:
        """The slot written by the last ``record``, or None before the first one."""
        return self._slots[self._index]

    def record(self, batch: Any) -> list[Any]:
        """Pin ``batch`` and a snapshot of its attribute values; return the new slot."""
        snapshot = snapshot_batch(batch)
        self._index = (self._index + 1) % self._depth
        slot: list[Any] = [batch, snapshot]
        self._slots[self._index] = slot
        return slot

    def keep_alive(self, *refs: Any) -> None:
        """Add ``refs`` to the current slot; they are released with it.

        Raises :class:`EmptyRingError` before the first ``record`` (there is no
        iteration to attach them to).
        """
        slot = self._slots[self._index]
        if slot is None:
            raise EmptyRingError("keep_alive() before any record(): nothing to attach the refs to")
        slot.extend(refs)

    def clear(self) -> None:
        """Drop every pinned reference (e.g. at shutdown); the index is kept."""
        self._slots = [None] * self._depth

    def __len__(self) -> int:
        """Number of occupied slots."""
        return sum(slot is not None for slot in self._slots)

    def __repr__(self) -> str:
        return f"BatchRecordRing(depth={self._depth}, index={self._index}, occupied={len(self)})"
