"""Make a ``ScheduleBatch`` transactional across one forward (SGLang 0.5.13 ``_forward_isolation``).

Upstream's ``Scheduler._forward_isolation(batch, *, overlap)`` (first named
``_overlap_forward_isolation``) does, in order:

1. snapshot every dataclass field when the batch is spec-v2 (``batch.is_spec_v2``;
   0.5.14+ widen this to any speculative algorithm);
2. swap ``batch.sampling_info`` for ``sampling_info.copy_for_forward()``, a shallow copy
   without the penalizer orchestrator, so repeated ``ForwardBatch.init_new`` calls never
   apply a penalty twice;
3. under overlap, pin the batch (after the swap, so the forward copy is pinned) in the
   two-slot ring that keeps GPU tensors alive across the forward stream;
4. on exit, exception or not: restore the snapshot, or only ``sampling_info`` when no
   snapshot was taken.

:func:`overlap_forward_isolation` keeps that contract and fixes upstream's defects:

* the snapshot covers the whole instance state, not only dataclass fields (upstream's
  known limitation): on exit the instance has exactly the attributes it had at entry,
  bound to the same objects, and attributes created inside the block are gone;
* a failure while pinning restores the batch before it propagates (upstream left the
  forward copy of ``sampling_info`` on the batch);
* isolating a batch that is already isolated raises :class:`NestedIsolationError`
  before touching anything (upstream failed with an AttributeError deep inside
  ``copy_for_forward``);
* how to snapshot a class is worked out once per class, not per call;
* one-shot forward overrides are reset on exit (see ``reset_overrides``).

No torch and no sglang import: the batch, its ``sampling_info`` and the ring are
duck-typed.
"""

from __future__ import annotations

import dataclasses
from types import TracebackType
from typing import Any, Final, Literal, Optional, Protocol, Union

from .overrides import FORWARD_OVERRIDE_DEFAULTS

__all__ = [
    "ForwardIsolation",
    "NestedIsolationError",
    "SnapshotPolicy",
    "SupportsRecord",
    "is_isolated",
    "overlap_forward_isolation",
    "restore_batch",
    "snapshot_batch",
]

#: ``None``/``"spec_v2"``: snapshot when ``batch.is_spec_v2`` (0.5.13);
#: ``"any_spec"``: when ``not batch.spec_algorithm.is_none()`` (0.5.14+);
#: ``True``/``False``: always / never.
SnapshotPolicy = Union[bool, Literal["spec_v2", "any_spec"], None]

_MISSING: Final[Any] = object()
_FRESH, _ENTERED, _EXITED = 0, 1, 2
_POLICIES: Final = ("spec_v2", "any_spec")
_OBJECT_SETATTR: Final[Any] = object.__setattr__

# id() -> batch, for every batch inside an isolation. Holding the batch keeps its id
# from being reused by another object, even if an isolation is abandoned unexited.
_ACTIVE: dict[int, Any] = {}


class NestedIsolationError(RuntimeError):
    """The batch is already inside an ``overlap_forward_isolation`` block."""


class SupportsRecord(Protocol):
    """What ``ring`` must provide: pin ``batch`` (see ``BatchRecordRing.record``)."""

    def record(self, batch: Any) -> object: ...


class _ClassPlan:
    """How to snapshot and restore instances of one class, computed once per class.

    ``fast``: the class keeps all its state in the instance ``__dict__`` and does not
    override ``__setattr__`` (a plain dataclass such as ``ScheduleBatch``). Then a
    snapshot is ``__dict__.copy()`` and a restore installs a snapshot dict as the new
    ``__dict__``: O(1), and exactly the entry state.
    Otherwise (``__slots__``, fields shadowed by a property with a setter, a custom
    ``__setattr__``, a frozen dataclass) every name goes through ``getattr``/``setattr``/
    ``delattr``; ``descriptor_names`` are the fields and slots stored outside
    ``__dict__`` by a settable data descriptor, ``named`` every field and slot that
    can be read and rebound.
    """

    __slots__ = (
        "has_dict",
        "fast",
        "descriptor_names",
        "named",
        "overrides_fast",
        "overrides_slow",
        "spec_v2_property",
    )

    def __init__(self, batch: Any) -> None:
        cls = type(batch)
        fields: tuple[str, ...] = ()
        if dataclasses.is_dataclass(cls):
            fields = tuple(f.name for f in dataclasses.fields(cls))
        slot_names = _slot_names(cls)
        self.has_dict = hasattr(batch, "__dict__")
        plain_setattr = cls.__setattr__ is _OBJECT_SETATTR
        descriptor_names = tuple(n for n in dict.fromkeys(fields + slot_names) if _is_settable_descriptor(cls, n))
        self.descriptor_names = descriptor_names
        self.fast = self.has_dict and plain_setattr and not descriptor_names
        # ScheduleBatch.is_spec_v2 is a property: read it directly on the hot path.
        self.spec_v2_property = isinstance(_class_attr(cls, "is_spec_v2"), property)
        # Names read one by one when the dict shortcut is not allowed; a read-only
        # property cannot be rebound, so it is not part of the state.
        self.named = tuple(
            n
            for n in dict.fromkeys(fields + slot_names)
            if not isinstance(_class_attr(cls, n), property) or _is_settable_descriptor(cls, n)
        )
        # One-shot override names to reset on exit: for a dataclass only its fields
        # (a 0.5.16+ class has none), for anything else whichever it happens to have.
        is_dataclass = dataclasses.is_dataclass(cls)
        overrides = tuple((n, d) for n, d in FORWARD_OVERRIDE_DEFAULTS if n in fields or not is_dataclass)
        if self.fast and is_dataclass:
            self.overrides_fast: Optional[dict[str, Any]] = dict(overrides) if overrides else None
            self.overrides_slow: tuple[tuple[str, Any], ...] = ()
        else:
            self.overrides_fast = None
            self.overrides_slow = overrides

    def capture(self, batch: Any) -> dict[str, Any]:
        if self.fast:
            copied: dict[str, Any] = batch.__dict__.copy()
            return copied
        snap: dict[str, Any] = dict(vars(batch)) if self.has_dict else {}
        for name in self.named:
            if name not in snap:
                value = getattr(batch, name, _MISSING)
                if value is not _MISSING:
                    snap[name] = value
        return snap

    def restore(self, batch: Any, snap: dict[str, Any], *, adopt: bool = False) -> None:
        """Put back exactly the state in ``snap``; ``adopt``: the batch may keep ``snap``."""
        if self.fast:
            batch.__dict__ = snap if adopt else snap.copy()
            return
        # Remove what was created since the snapshot ...
        if self.has_dict:
            for name in [n for n in vars(batch) if n not in snap]:
                delattr(batch, name)
        for name in self.descriptor_names:
            if name not in snap and not isinstance(_class_attr(type(batch), name), property):
                try:
                    delattr(batch, name)  # a slot that was unset at snapshot time
                except AttributeError:
                    pass
        # ... then rebind the rest. Unchanged values are skipped: fewer calls to a custom
        # __setattr__, and a frozen instance that nothing changed restores cleanly.
        for name, value in snap.items():
            if getattr(batch, name, _MISSING) is not value:
                setattr(batch, name, value)

    def reset_overrides(self, batch: Any) -> None:
        if self.overrides_fast is not None:
            batch.__dict__.update(self.overrides_fast)
            return
        for name, default in self.overrides_slow:
            current = getattr(batch, name, _MISSING)
            if current is not _MISSING and current is not default:
                setattr(batch, name, default)


def _slot_names(cls: type) -> tuple[str, ...]:
    names: list[str] = []
    for klass in cls.__mro__:
        slots = vars(klass).get("__slots__", ())
        if isinstance(slots, str):
            slots = (slots,)
        for name in slots:
            if name in ("__dict__", "__weakref__"):
                continue
            if name.startswith("__") and not name.endswith("__"):
                name = f"_{klass.__name__.lstrip('_')}{name}"  # private-name mangling
            names.append(name)
    return tuple(names)


def _class_attr(cls: type, name: str) -> Any:
    for klass in cls.__mro__:
        if name in vars(klass):
            return vars(klass)[name]
    return _MISSING


def _is_settable_descriptor(cls: type, name: str) -> bool:
    attr = _class_attr(cls, name)
    if attr is _MISSING:
        return False
    if isinstance(attr, property):
        return attr.fset is not None
    kind = type(attr)
    return hasattr(kind, "__set__") or hasattr(kind, "__delete__")


_PLANS: dict[type, _ClassPlan] = {}


def _plan(batch: Any) -> _ClassPlan:
    plan = _PLANS.get(type(batch))
    if plan is None:
        plan = _PLANS[type(batch)] = _ClassPlan(batch)
    return plan


def snapshot_batch(batch: Any) -> dict[str, Any]:
    """Return ``{name: value}`` for every attribute the instance has now (shallow).

    Covers the instance ``__dict__``, dataclass fields and ``__slots__`` (unset slots
    are left out; read-only properties are not state). Values are the objects
    themselves: nothing is copied or cloned. The class layout is analysed once per class.
    """
    return _plan(batch).capture(batch)


def restore_batch(batch: Any, snapshot: dict[str, Any]) -> None:
    """Put ``batch`` back in the state recorded by :func:`snapshot_batch` (by identity).

    Attributes rebound since are rebound to their snapshot objects, deleted ones come
    back, and ones created since are deleted. ``snapshot`` is neither modified nor kept,
    so it can be restored again.
    """
    _plan(batch).restore(batch, snapshot)


def is_isolated(batch: Any) -> bool:
    """Whether ``batch`` is inside an ``overlap_forward_isolation`` block right now."""
    return _ACTIVE.get(id(batch)) is batch


def _wants_snapshot(batch: Any, policy: SnapshotPolicy) -> bool:
    if policy is True or policy is False:
        return policy
    if policy is None or policy == "spec_v2":
        flag = getattr(batch, "is_spec_v2", _MISSING)
        if flag is _MISSING:
            algo = getattr(batch, "spec_algorithm", None)
            supports = getattr(algo, "supports_spec_v2", None)
            return bool(supports()) if supports is not None else False
        return bool(flag() if callable(flag) else flag)
    # "any_spec" (validated in ForwardIsolation.__init__)
    algo = getattr(batch, "spec_algorithm", None)
    return algo is not None and not algo.is_none()


class ForwardIsolation:
    """The context manager returned by :func:`overlap_forward_isolation` (single use).

    ``__enter__`` returns the object itself, with these attributes set:
    ``snapshot`` (the entry snapshot dict while inside the block, None when none was
    taken; None again after exit, when the batch may have adopted it as its
    ``__dict__``), ``scheduler_sampling_info`` (the batch's own object) and
    ``forward_sampling_info`` (the copy in use during the block, or None).
    """

    __slots__ = (
        "batch",
        "ring",
        "policy",
        "reset_overrides",
        "snapshot",
        "scheduler_sampling_info",
        "forward_sampling_info",
        "_had_sampling_info",
        "_plan",
        "_state",
    )

    def __init__(
        self,
        batch: Any,
        ring: Optional[SupportsRecord] = None,
        snapshot: SnapshotPolicy = None,
        reset_overrides: bool = True,
    ) -> None:
        if snapshot is not None and not isinstance(snapshot, bool) and snapshot not in _POLICIES:
            raise ValueError(f"snapshot must be None, True, False, 'spec_v2' or 'any_spec', not {snapshot!r}")
        self.batch = batch
        self.ring = ring
        self.policy = snapshot
        self.reset_overrides = reset_overrides
        self.snapshot: Optional[dict[str, Any]] = None
        self.scheduler_sampling_info: Any = None
        self.forward_sampling_info: Any = None
        self._had_sampling_info = False
        self._plan: Optional[_ClassPlan] = None
        self._state = _FRESH

    def __enter__(self) -> ForwardIsolation:
        batch = self.batch
        key = id(batch)
        if self._state:
            raise RuntimeError("a ForwardIsolation can be entered only once; make a new one")
        if _ACTIVE.get(key) is batch:
            self._state = _EXITED
            raise NestedIsolationError(
                f"{type(batch).__name__} at {key:#x} is already inside overlap_forward_isolation; "
                "nested isolation of the same batch is not supported"
            )
        _ACTIVE[key] = batch
        self._state = _ENTERED
        try:
            plan = _PLANS.get(type(batch)) or _plan(batch)
            self._plan = plan
            policy = self.policy
            if policy is None and plan.spec_v2_property:
                full = batch.is_spec_v2
            else:
                full = _wants_snapshot(batch, policy)
            if full:
                self.snapshot = batch.__dict__.copy() if plan.fast else plan.capture(batch)
            sched = getattr(batch, "sampling_info", _MISSING)
            if sched is not _MISSING:
                self._had_sampling_info = True
                self.scheduler_sampling_info = sched
                if sched is not None:
                    # Before upstream's try too: if this raises, nothing was swapped.
                    fwd = self.forward_sampling_info = sched.copy_for_forward()
                    batch.sampling_info = fwd
            if self.ring is not None:
                try:
                    # After the swap, as upstream: the forward copy is what gets pinned.
                    self.ring.record(batch)
                except BaseException:
                    self._restore()
                    raise
        except BaseException:
            self._state = _EXITED
            _ACTIVE.pop(key, None)
            raise
        return self

    def _restore(self) -> None:
        batch = self.batch
        plan = self._plan
        assert plan is not None
        snap = self.snapshot
        if snap is not None:
            self.snapshot = None  # the batch may adopt it as its __dict__
            plan.restore(batch, snap, adopt=True)
        if self._had_sampling_info and (snap is None or "sampling_info" not in snap):
            batch.sampling_info = self.scheduler_sampling_info
        if self.reset_overrides:
            plan.reset_overrides(batch)

    def __exit__(
        self,
        exc_type: Optional[type[BaseException]],
        exc: Optional[BaseException],
        tb: Optional[TracebackType],
    ) -> Literal[False]:
        if self._state != _ENTERED:
            raise RuntimeError("ForwardIsolation.__exit__ without a matching __enter__")
        self._state = _EXITED
        try:
            self._restore()
        finally:
            _ACTIVE.pop(id(self.batch), None)
        return False


def overlap_forward_isolation(
    batch: Any,
    ring: Optional[SupportsRecord] = None,
    *,
    snapshot: SnapshotPolicy = None,
    reset_overrides: bool = True,
) -> ForwardIsolation:
    """Context manager that makes ``batch`` transactional across one forward.

    On entry, in this order:

    1. **Snapshot** (shallow, by identity) every attribute the instance has -- dataclass
       fields, ``__slots__`` and any other instance attribute -- when the policy says so:
       ``snapshot=None`` or ``"spec_v2"`` snapshots when ``batch.is_spec_v2`` is true (the
       0.5.13 gate; a batch without that property falls back to
       ``batch.spec_algorithm.supports_spec_v2()``, and to "no" without a
       ``spec_algorithm``); ``"any_spec"`` when ``not batch.spec_algorithm.is_none()``
       (the 0.5.14+ gate); ``True``/``False`` force it.
    2. **Swap** ``batch.sampling_info`` for ``batch.sampling_info.copy_for_forward()``
       unless it is None (or absent).
    3. **Pin**: ``ring.record(batch)`` when a ring is given (overlap mode). If that
       raises, the batch is restored first, so the forward copy never stays on it.

    On exit, normal or by exception (which always propagates unchanged): with a
    snapshot, the instance gets back exactly its entry state -- every attribute it had
    (dataclass field or not) bound to its entry object, attributes deleted inside
    re-created, attributes created inside removed (upstream restores dataclass fields
    only); re-apply what must carry over *after* the block, as upstream's callers do.
    Without a snapshot only ``sampling_info`` is restored and every other change
    persists. Either way the batch's own ``sampling_info`` comes back. The ring slot
    stays pinned after exit, as upstream. A plain-``__dict__`` batch gets its snapshot
    dict as its new ``__dict__`` (an O(1) restore), so do not hold on to
    ``batch.__dict__`` across the block.

    ``reset_overrides`` (default True) then sets the one-shot forward overrides
    (``seq_lens_cpu_cache``, ``capture_hidden_mode``,
    ``return_hidden_states_before_norm``) that the batch has back to their defaults:
    they belong to one forward. Upstream leaves them as the restore or the forward left
    them, so a snapshot restore resurrects an override that was set before entry and
    consumed inside, and it leaks into the next forward; ``reset_overrides=False`` gives
    the upstream behaviour.

    Entering while the same batch is already isolated raises
    :class:`NestedIsolationError` and changes nothing. The returned object is single-use.
    """
    return ForwardIsolation(batch, ring, snapshot, reset_overrides)
