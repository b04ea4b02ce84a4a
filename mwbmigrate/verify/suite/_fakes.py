"""Stand-ins shared by the suite: a fake CUDA tensor, a faithful sampling info, a spec algorithm,
and the reference ``ScheduleBatch`` on which the runtime helpers are tested.

``RefScheduleBatch`` is what a migrated tree's ``ScheduleBatch`` looks like for the contracts
under test: a dataclass with the one-shot fields (from ``ForwardOverrideFields``) and
``prepare_for_decode`` / ``filter_batch`` / ``merge_batch`` reduced to their request-pool
bookkeeping, calling the runtime helpers exactly where issue 4 says a migrated tree must.
"""

from __future__ import annotations

import dataclasses
import enum
from typing import Any, Callable, Optional

import torch

from mwbmigrate.runtime import (
    ForwardOverrideFields,
    clear_req_pool_metadata,
    ensure_req_pool_indices_cpu,
)

# --------------------------------------------------------------------------- streams


class CudaLike(torch.Tensor):
    """A CPU tensor that says it is on CUDA and logs ``record_stream`` calls in ``LOG``."""

    LOG: list[tuple[Any, Any]] = []

    @property
    def is_cuda(self) -> bool:  # type: ignore[override]
        return True

    def record_stream(self, stream: Any) -> None:
        CudaLike.LOG.append((self, stream))


def cuda_like(*values: int) -> CudaLike:
    return torch.tensor(list(values) or [0], dtype=torch.int64).as_subclass(CudaLike)


class Stream:
    """A sentinel stream object (never a real one: nothing may touch torch.cuda)."""

    def __repr__(self) -> str:
        return "<sentinel stream>"


# --------------------------------------------------------------------------- spec / modes


class SpecAlgo:
    """``spec_algorithm`` stand-in: ``none``, ``v1`` (speculative, not v2) or ``v2``."""

    def __init__(self, kind: str = "none") -> None:
        assert kind in ("none", "v1", "v2")
        self.kind = kind

    def is_none(self) -> bool:
        return self.kind == "none"

    def supports_spec_v2(self) -> bool:
        return self.kind == "v2"

    def __repr__(self) -> str:
        return f"SpecAlgo({self.kind})"


class CaptureHiddenMode(enum.IntEnum):
    """Same members and values as SGLang's enum."""

    NULL = 0
    LAST = 1
    FULL = 2


class ForwardMode(enum.IntEnum):
    EXTEND = 1
    DECODE = 2
    IDLE = 3


# --------------------------------------------------------------------------- sampling


class StubOrchestrator:
    """Penalizer orchestrator with a unit additive penalty; counts its calls."""

    is_required = True

    def __init__(self, penalty: float = 1.0) -> None:
        self.penalty = penalty
        self.accumulated = 0
        self.applied = 0

    def accumulate_additive_penalties(self, buffer: torch.Tensor) -> None:
        self.accumulated += 1
        buffer.add_(self.penalty)

    def accumulate_scaling_penalties(self) -> None:
        return None

    def apply(self, logits: torch.Tensor) -> None:
        self.applied += 1
        logits.add_(self.penalty)

    def filter(self, keep: Any) -> None:
        pass

    def merge(self, other: Any) -> None:
        pass

    def cumulate_output_tokens(self, ids: Any) -> None:
        pass


class NotRequiredOrchestrator(StubOrchestrator):
    is_required = False


@dataclasses.dataclass
class FakeSamplingInfo:
    """What the isolation contract needs from ``SamplingBatchInfo``, written as upstream's.

    ``copy_for_forward`` updates the penalties on ``self`` (dereferencing the orchestrator, so
    a forward copy -- orchestrator None -- raises AttributeError if copied again) and returns a
    shallow ``dataclasses.replace`` without the orchestrator. ``copy_calls`` is shared by the
    copies, so it counts calls on the original and on any copy.
    """

    penalizer_orchestrator: Any = None
    vocab_size: int = 4
    batch_size: int = 1
    acc_additive_penalties: Optional[torch.Tensor] = None
    acc_scaling_penalties: Optional[torch.Tensor] = None
    grammars: Any = None
    copy_calls: list[Any] = dataclasses.field(default_factory=list)

    def update_penalties(self) -> None:
        if self.penalizer_orchestrator.is_required:
            self.acc_additive_penalties = torch.zeros((self.batch_size, self.vocab_size))
            self.penalizer_orchestrator.accumulate_additive_penalties(self.acc_additive_penalties)
            self.acc_scaling_penalties = self.penalizer_orchestrator.accumulate_scaling_penalties()
        else:
            self.acc_additive_penalties = None
            self.acc_scaling_penalties = None

    def copy_for_forward(self) -> "FakeSamplingInfo":
        self.copy_calls.append(id(self))
        self.update_penalties()
        return dataclasses.replace(self, penalizer_orchestrator=None)

    def apply_logits_bias(self, logits: torch.Tensor) -> None:
        if self.acc_additive_penalties is not None:
            logits.add_(self.acc_additive_penalties)
        if self.acc_scaling_penalties is not None:
            logits.mul_(self.acc_scaling_penalties)
        if self.penalizer_orchestrator and self.penalizer_orchestrator.is_required:
            self.penalizer_orchestrator.apply(logits)

    def filter_batch(self, keep_indices: Any, keep_indices_device: Any) -> None:
        pass

    def merge_batch(self, other: Any) -> None:
        pass


# --------------------------------------------------------------------------- requests


class Req:
    """The request attributes the scenarios read."""

    def __init__(self, pool_idx: int, seq_len: int = 10, *, finished: bool = False, rid: str = "") -> None:
        self.req_pool_idx = pool_idx
        self.rid = rid or f"r{pool_idx}"
        self.decode_batch_idx = 0
        self.kv_committed_len = seq_len
        self.kv_allocated_len = seq_len
        self.origin_input_ids = list(range(seq_len))
        self.output_ids: list[int] = []
        self.return_logprob = False
        self.return_hidden_states = False
        self.grammar = None
        self.lora_id = None
        self._finished = finished
        self.is_prefill_only = False

    def finished(self) -> bool:
        return self._finished

    def __repr__(self) -> str:
        return f"Req({self.req_pool_idx})"


# --------------------------------------------------------------------------- reference batch


def _default_alloc(batch: "RefScheduleBatch") -> torch.Tensor:
    return torch.arange(len(batch.reqs), dtype=torch.int64) + 42


def _given(value: Optional[torch.Tensor], name: str) -> torch.Tensor:
    """A tensor field the scenario must have set; None fails with a TypeError, as arithmetic on it would."""
    if value is None:
        raise TypeError(f"RefScheduleBatch.{name} is None")
    return value


def _cat(name: str, *batches: "RefScheduleBatch") -> torch.Tensor:
    return torch.cat([_given(getattr(batch, name), name) for batch in batches])


@dataclasses.dataclass
class RefScheduleBatch(ForwardOverrideFields):
    """The reference migrated ``ScheduleBatch`` (see the module docstring)."""

    reqs: list[Any] = dataclasses.field(default_factory=list)
    device: str = "cpu"
    forward_mode: Any = None
    req_pool_indices: Optional[torch.Tensor] = None
    req_pool_indices_cpu: Optional[torch.Tensor] = None
    seq_lens: Optional[torch.Tensor] = None
    seq_lens_cpu: Optional[torch.Tensor] = None
    orig_seq_lens: Optional[torch.Tensor] = None
    out_cache_loc: Optional[torch.Tensor] = None
    seq_lens_sum: Optional[int] = None
    input_ids: Optional[torch.Tensor] = None
    spec_algorithm: Any = None
    spec_info: Any = None
    sampling_info: Any = None
    return_hidden_states: bool = False
    hisparse_coordinator: Any = None
    enable_overlap: bool = False
    alloc_for_decode: Callable[["RefScheduleBatch"], torch.Tensor] = _default_alloc

    @property
    def is_spec_v2(self) -> bool:
        return self.spec_algorithm is not None and self.spec_algorithm.supports_spec_v2()

    def prepare_for_decode(self) -> None:
        self.forward_mode = ForwardMode.DECODE
        ensure_req_pool_indices_cpu(self)  # the fix: restore before anything reads it
        self.out_cache_loc = self.alloc_for_decode(self)
        for req in self.reqs:
            req.decode_batch_idx += 1
            req.kv_committed_len += 1
            req.kv_allocated_len += 1
        self.seq_lens = _given(self.seq_lens, "seq_lens") + 1
        self.seq_lens_cpu = _given(self.seq_lens_cpu, "seq_lens_cpu") + 1
        self.orig_seq_lens = _given(self.orig_seq_lens, "orig_seq_lens") + 1
        self.seq_lens_sum = None
        if self.hisparse_coordinator is not None:
            self.hisparse_coordinator.map_last_loc_to_buffer(
                self.seq_lens,
                self.out_cache_loc,
                self.req_pool_indices,
                self.seq_lens_cpu,
                self.req_pool_indices_cpu,
            )

    def filter_batch(self, keep_indices: Optional[list[int]] = None) -> None:
        if keep_indices is None:
            keep_indices = [i for i, req in enumerate(self.reqs) if not req.finished()]
        if not keep_indices:
            self.reqs = []
            clear_req_pool_metadata(self)  # the fix: nothing stale survives
            return
        if len(keep_indices) == len(self.reqs):
            return
        keep = torch.tensor(keep_indices, dtype=torch.int64)
        self.reqs = [self.reqs[i] for i in keep_indices]
        self.req_pool_indices = _given(self.req_pool_indices, "req_pool_indices")[keep]
        if self.req_pool_indices_cpu is not None:
            self.req_pool_indices_cpu = self.req_pool_indices_cpu[keep_indices]
        self.seq_lens = _given(self.seq_lens, "seq_lens")[keep]
        self.orig_seq_lens = _given(self.orig_seq_lens, "orig_seq_lens")[keep]
        if self.seq_lens_cpu is not None:
            self.seq_lens_cpu = self.seq_lens_cpu[keep_indices]
        self.out_cache_loc = None
        self.seq_lens_sum = None

    def merge_batch(self, other: "RefScheduleBatch") -> None:
        ensure_req_pool_indices_cpu(self)  # the fix: both sides before the cat
        ensure_req_pool_indices_cpu(other)
        self.req_pool_indices = _cat("req_pool_indices", self, other)
        self.req_pool_indices_cpu = _cat("req_pool_indices_cpu", self, other)
        self.seq_lens = _cat("seq_lens", self, other)
        self.orig_seq_lens = _cat("orig_seq_lens", self, other)
        if self.seq_lens_cpu is None or other.seq_lens_cpu is None:
            self.seq_lens_cpu = None
        else:
            self.seq_lens_cpu = torch.cat([self.seq_lens_cpu, other.seq_lens_cpu])
        self.out_cache_loc = None
        self.seq_lens_sum = None
        self.reqs.extend(other.reqs)
