"""The per-forward snapshot `ScheduleBatch.get_model_worker_batch()` used to return, kept in code.

Before SGLang 0.5.13 a worker got a fresh `ModelWorkerBatch`: a shallow copy of the batch's fields
taken when the scheduler asked for it, plus a few values derived at that moment. Code that reads the
live batch instead observes the batch's later changes. Where a rewrite cannot prove that nothing
changes the batch in between, it keeps the snapshot:

    mwb = batch.get_model_worker_batch(seq_lens_cpu_cache=cpu)   ->   mwb = worker_batch_snapshot(batch, seq_lens_cpu_cache=cpu)

The snapshot is a shallow copy of the batch (it shares every object the old snapshot shared), of a
subclass of the batch's own class, so the 0.5.13 workers and `ForwardBatch.init_new` take it. It
answers what the old object answered:

* `seq_lens_cpu` is the override when one was given, for every forward that reads it;
* `capture_hidden_mode` is the mode derived when the snapshot was taken (FULL when the batch returns
  hidden states, else the speculative input's mode, else NULL), or whatever code writes there later;
* `return_hidden_states_before_norm` is False until code sets it;
* `extend_seq_lens`, `extend_prefix_lens`, `extend_logprob_start_lens` are None in decode and idle,
  and `lora_ids`, `dllm_block_offsets` are the requests' values at snapshot time;
* `sampling_info.grammars` is set from the requests, as the old method did when it was called.

A forward reads the three one-shot override fields and never consumes them: the reset that a
consuming `init_new` writes on a batch is ignored on a snapshot, so a snapshot forwarded twice keeps
its overrides for both forwards, as the old object did. Nothing is written on the batch itself,
so no override is left there for a later forward to consume.

A snapshot pickles (as its batch class, rebuilt as a snapshot) and copies like the old object.
What a copy cannot keep: the class is not `ModelWorkerBatch` (a type test or a class-name read
differs), and a request changed in place after the snapshot is seen by `init_new`, which reads the
requests itself.
"""

from __future__ import annotations

import copy
import sys
from typing import Any, Final

__all__ = ["WorkerBatchSnapshot", "worker_batch_snapshot"]

# The functions whose write of an override field's default is the consuming reset: SGLang's
# `ForwardBatch.init_new` and this runtime's own consumers (`forward_view`, `overrides`).
_CONSUMERS: Final = frozenset({"init_new", "consume_forward_overrides", "reset_forward_overrides"})
# Where SGLang defines `CaptureHiddenMode`; looked up in sys.modules only, never imported.
_ENUM_MODULE: Final = "sglang.srt.model_executor.forward_batch_info"
_GATED: Final = (
    ("extend_seq_lens", "extend_lens"),
    ("extend_prefix_lens", "prefix_lens"),
    ("extend_logprob_start_lens", "extend_logprob_start_lens"),
)


class _OverrideField:
    """An override field of a snapshot: a plain field of the old object, which a forward only reads."""

    def __init__(self, name: str, default: Any) -> None:
        self.name = name
        self.default = default

    def __get__(self, instance: object, owner: type | None = None) -> Any:
        if instance is None:
            return self
        return instance.__dict__.get(self.name, self.default)

    def __set__(self, instance: object, value: Any) -> None:
        if value is self.default and sys._getframe(1).f_code.co_name in _CONSUMERS:
            return  # the consuming reset of a forward: the old object kept its value
        instance.__dict__[self.name] = value

    def __delete__(self, instance: object) -> None:
        del instance.__dict__[self.name]


class WorkerBatchSnapshot:
    """The mixin of every snapshot class: `isinstance(x, WorkerBatchSnapshot)` tells a snapshot."""

    seq_lens_cpu_cache = _OverrideField("seq_lens_cpu_cache", None)
    capture_hidden_mode = _OverrideField("capture_hidden_mode", None)
    return_hidden_states_before_norm = _OverrideField("return_hidden_states_before_norm", False)

    def __reduce__(self) -> tuple[Any, ...]:
        # The class is made at run time: pickle names the batch's own class and rebuilds this one.
        base = next(c for c in type(self).__mro__[1:] if not issubclass(c, WorkerBatchSnapshot))
        return (_restore, (base, dict(self.__dict__)))


def _restore(batch_class: type, fields: dict[str, Any]) -> Any:
    snapshot: Any = object.__new__(_snapshot_class(batch_class))
    snapshot.__dict__.update(fields)
    return snapshot


_SNAPSHOT_CLASSES: dict[type, type] = {}


def _snapshot_class(batch_class: type) -> type:
    if issubclass(batch_class, WorkerBatchSnapshot):
        return batch_class
    found = _SNAPSHOT_CLASSES.get(batch_class)
    if found is None:
        found = type(batch_class.__name__, (WorkerBatchSnapshot, batch_class), {"__module__": batch_class.__module__})
        _SNAPSHOT_CLASSES[batch_class] = found
    return found


def _capture_hidden_mode(batch: Any) -> Any:
    """The old method's derivation, word for word (`getattr` default NULL, `spec_info` by truth)."""
    modes = getattr(sys.modules.get(_ENUM_MODULE), "CaptureHiddenMode", None)
    spec_mode = getattr(batch.spec_info, "capture_hidden_mode", None) if batch.spec_info else None
    if getattr(batch, "return_hidden_states", False):
        return modes.FULL if modes is not None else _member_of(spec_mode, "FULL")
    if batch.spec_info and spec_mode is not None:
        return spec_mode
    return modes.NULL if modes is not None else _member_of(spec_mode, "NULL")


def _member_of(related: Any, name: str) -> Any:
    member = getattr(type(related), name, None) if related is not None else None
    if member is None:
        raise LookupError(f"CaptureHiddenMode.{name} not found: import {_ENUM_MODULE} before taking a snapshot")
    return member


def worker_batch_snapshot(batch: Any, seq_lens_cpu_cache: Any = None) -> Any:
    """What `batch.get_model_worker_batch(seq_lens_cpu_cache)` returned, as a copy of the batch."""
    snapshot = copy.copy(batch)
    snapshot.__class__ = _snapshot_class(type(batch))
    reqs = list(getattr(batch, "reqs", None) or ())
    sampling_info = getattr(batch, "sampling_info", None)
    if sampling_info:
        sampling_info.grammars = [req.grammar for req in reqs] if getattr(batch, "has_grammar", False) else None
    fields = snapshot.__dict__
    decode = batch.forward_mode.is_decode_or_idle()
    for old_name, source in _GATED:
        fields[old_name] = None if decode else getattr(batch, source, None)
    if seq_lens_cpu_cache is not None:
        fields["seq_lens_cpu"] = seq_lens_cpu_cache
    fields["seq_lens_cpu_cache"] = None
    fields["capture_hidden_mode"] = _capture_hidden_mode(batch)
    fields["return_hidden_states_before_norm"] = False
    fields["lora_ids"] = [getattr(req, "lora_id", None) for req in reqs]
    fields["dllm_block_offsets"] = [getattr(req, "dllm_block_offset", None) for req in reqs]
    return snapshot
