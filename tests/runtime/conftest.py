"""Stand-ins for the runtime tests: a ScheduleBatch-like dataclass, a faithful
``SamplingBatchInfo.copy_for_forward``, a fake CUDA tensor, and the enum the runtime
cannot import from sglang.

They are exposed through fixtures (test modules never import this file), so that the
tests keep working with pytest's default rootdir-based collection.
"""

from __future__ import annotations

import dataclasses
import enum
import weakref
from typing import Any, Callable, Iterator, List, Optional, Sequence

import pytest
import torch

from mwbmigrate.runtime import (
    build_req_pool_indices,
    clear_req_pool_metadata,
    ensure_req_pool_indices_cpu,
)


class CaptureHiddenMode(enum.IntEnum):
    """Copy of sglang's ``forward_batch_info.CaptureHiddenMode`` (0.5.13)."""

    NULL = 0
    LAST = 1
    FULL = 2


@dataclasses.dataclass(frozen=True)
class FakeSpecAlgorithm:
    """``SpeculativeAlgorithm`` as far as the runtime looks at it."""

    name: str = "NONE"

    def is_none(self) -> bool:
        return self.name == "NONE"

    def supports_spec_v2(self) -> bool:
        return self.name == "EAGLE_V2"


NON_SPEC = FakeSpecAlgorithm("NONE")
SPEC_V1 = FakeSpecAlgorithm("EAGLE")  # speculative, not v2: only the 0.5.14+ gate snapshots it
SPEC_V2 = FakeSpecAlgorithm("EAGLE_V2")


class FakeOrchestrator:
    """Penalizer orchestrator with one unit additive penalty; counts its calls."""

    def __init__(self, penalty: float = 1.0) -> None:
        self.is_required = True
        self.penalty = penalty
        self.accumulate_calls = 0
        self.apply_calls = 0

    def accumulate_additive_penalties(self, buf: torch.Tensor) -> None:
        self.accumulate_calls += 1
        buf += self.penalty

    def accumulate_scaling_penalties(self) -> None:
        return None

    def apply(self, logits: torch.Tensor) -> None:
        self.apply_calls += 1
        logits += self.penalty


@dataclasses.dataclass
class FakeSamplingInfo:
    """The parts of 0.5.13's ``SamplingBatchInfo`` that forward isolation relies on."""

    temperatures: torch.Tensor
    vocab_size: int
    penalizer_orchestrator: Optional[FakeOrchestrator]
    acc_additive_penalties: Optional[torch.Tensor] = None
    acc_scaling_penalties: Optional[torch.Tensor] = None
    grammars: Optional[list] = None
    # Shared by the original and its copies (dataclasses.replace passes it on); weak,
    # so that counting calls keeps no copy alive.
    copy_refs: List["weakref.ref[FakeSamplingInfo]"] = dataclasses.field(default_factory=list)

    @property
    def copies_made(self) -> List[Optional["FakeSamplingInfo"]]:
        """Every ``copy_for_forward`` result so far (None where it has been freed)."""
        return [ref() for ref in self.copy_refs]

    def update_penalties(self) -> None:  # upstream, verbatim in substance
        if self.penalizer_orchestrator.is_required:
            self.acc_additive_penalties = torch.zeros((len(self.temperatures), self.vocab_size), dtype=torch.float32)
            self.penalizer_orchestrator.accumulate_additive_penalties(self.acc_additive_penalties)
            self.acc_scaling_penalties = self.penalizer_orchestrator.accumulate_scaling_penalties()
        else:
            self.acc_additive_penalties = None
            self.acc_scaling_penalties = None

    def copy_for_forward(self) -> "FakeSamplingInfo":
        self.update_penalties()
        copy = dataclasses.replace(self, penalizer_orchestrator=None)
        self.copy_refs.append(weakref.ref(copy))
        return copy

    def apply_logits_bias(self, logits: torch.Tensor) -> None:
        if self.acc_additive_penalties is not None:
            logits.add_(self.acc_additive_penalties)
        if self.penalizer_orchestrator and self.penalizer_orchestrator.is_required:
            self.penalizer_orchestrator.apply(logits)


@dataclasses.dataclass
class FakeReq:
    req_pool_idx: int
    done: bool = False

    def finished(self) -> bool:
        return self.done


@dataclasses.dataclass
class FakeScheduleBatch:
    """ScheduleBatch (0.5.13) reduced to the fields the runtime touches.

    ``filter_batch``/``merge_batch``/``prepare_for_decode`` follow upstream's code for
    the request-pool metadata, with the runtime's fixes applied where a migrated tree
    applies them.
    """

    reqs: List[FakeReq] = dataclasses.field(default_factory=list)
    device: str = "cpu"
    spec_algorithm: FakeSpecAlgorithm = NON_SPEC
    spec_info: Any = None
    sampling_info: Optional[FakeSamplingInfo] = None
    forward_mode: Any = None
    return_hidden_states: bool = False
    input_ids: Optional[torch.Tensor] = None
    req_pool_indices: Optional[torch.Tensor] = None
    req_pool_indices_cpu: Optional[torch.Tensor] = None
    seq_lens: Optional[torch.Tensor] = None
    seq_lens_cpu: Optional[torch.Tensor] = None
    orig_seq_lens: Optional[torch.Tensor] = None
    out_cache_loc: Optional[torch.Tensor] = None
    seq_lens_sum: Optional[int] = None
    # One-shot per-forward overrides, declared as upstream declares them.
    seq_lens_cpu_cache: Optional[torch.Tensor] = None
    capture_hidden_mode: Optional[CaptureHiddenMode] = None
    return_hidden_states_before_norm: bool = False

    @property
    def is_spec_v2(self) -> bool:
        return self.spec_algorithm.supports_spec_v2()

    # --- request-pool metadata, upstream's code plus the runtime's fixes ---------------
    def filter_batch(self, keep_indices: Optional[List[int]] = None) -> None:
        if keep_indices is None:
            keep_indices = [i for i, r in enumerate(self.reqs) if not r.finished()]
        if not keep_indices:
            self.reqs = []
            clear_req_pool_metadata(self)  # the fix; upstream leaves stale tensors
            return
        if len(keep_indices) == len(self.reqs):
            return
        keep_device = torch.tensor(keep_indices, dtype=torch.int64, device=self.device)
        ensure_req_pool_indices_cpu(self)  # the fix; upstream indexes a None mirror
        self.reqs = [self.reqs[i] for i in keep_indices]
        self.req_pool_indices = self.req_pool_indices[keep_device]
        self.req_pool_indices_cpu = self.req_pool_indices_cpu[keep_indices]
        self.seq_lens = self.seq_lens[keep_device]
        self.orig_seq_lens = self.orig_seq_lens[keep_device]
        self.out_cache_loc = None
        self.seq_lens_sum = None
        if self.seq_lens_cpu is not None:
            self.seq_lens_cpu = self.seq_lens_cpu[keep_indices]

    def merge_batch(self, other: "FakeScheduleBatch") -> None:
        ensure_req_pool_indices_cpu(self)  # the fix: upstream's torch.cat fails on None
        ensure_req_pool_indices_cpu(other)
        self.req_pool_indices = torch.cat([self.req_pool_indices, other.req_pool_indices])
        self.req_pool_indices_cpu = torch.cat([self.req_pool_indices_cpu, other.req_pool_indices_cpu])
        self.seq_lens = torch.cat([self.seq_lens, other.seq_lens])
        self.seq_lens_cpu = torch.cat([self.seq_lens_cpu, other.seq_lens_cpu])
        self.orig_seq_lens = torch.cat([self.orig_seq_lens, other.orig_seq_lens])
        self.out_cache_loc = None
        self.seq_lens_sum = None
        self.reqs.extend(other.reqs)

    def prepare_for_decode(self, on_bookkeeping: Callable[["FakeScheduleBatch"], None]) -> None:
        """Upstream hands the mirror to HiSparse bookkeeping; the fix restores it first."""
        ensure_req_pool_indices_cpu(self)
        on_bookkeeping(self)
        self.seq_lens = self.seq_lens + 1
        self.seq_lens_cpu = self.seq_lens_cpu + 1
        self.orig_seq_lens = self.orig_seq_lens + 1


def make_batch(
    pool_indices: Sequence[int] = (1, 2),
    seq_lens: Optional[Sequence[int]] = None,
    *,
    device: str = "cpu",
    spec_algorithm: FakeSpecAlgorithm = NON_SPEC,
    with_sampling: bool = True,
    mirror: bool = True,
    cls: type = FakeScheduleBatch,
    **kwargs: Any,
) -> FakeScheduleBatch:
    """A batch of ``len(pool_indices)`` running requests with consistent metadata."""
    reqs = [FakeReq(i) for i in pool_indices]
    lens = list(seq_lens) if seq_lens is not None else [10 * (k + 1) for k in range(len(reqs))]
    device_idx, cpu_idx = build_req_pool_indices(reqs, device)
    sampling = None
    if with_sampling:
        sampling = FakeSamplingInfo(
            temperatures=torch.ones(len(reqs), 1), vocab_size=4, penalizer_orchestrator=FakeOrchestrator()
        )
    return cls(
        reqs=reqs,
        device=device,
        spec_algorithm=spec_algorithm,
        sampling_info=sampling,
        input_ids=torch.arange(len(reqs), device=device),
        req_pool_indices=device_idx,
        req_pool_indices_cpu=cpu_idx if mirror else None,
        seq_lens=torch.tensor(lens, dtype=torch.int64, device=device),
        seq_lens_cpu=torch.tensor(lens, dtype=torch.int64),
        orig_seq_lens=torch.tensor(lens, dtype=torch.int32, device=device),
        out_cache_loc=torch.arange(len(reqs), device=device),
        seq_lens_sum=sum(lens),
        **kwargs,
    )


class CudaLike(torch.Tensor):
    """CPU tensor that claims ``is_cuda`` and logs ``record_stream`` instead of doing it."""

    record_log: List[tuple] = []  # not "log": that would shadow Tensor.log

    @property
    def is_cuda(self) -> bool:  # type: ignore[override]
        return True

    def record_stream(self, stream: Any) -> None:  # type: ignore[override]
        CudaLike.record_log.append((self, stream))


def cuda_like(*values: int) -> CudaLike:
    return torch.tensor(values).as_subclass(CudaLike)


@pytest.fixture
def recorded() -> Iterator[List[tuple]]:
    """The ``(tensor, stream)`` calls made on CudaLike tensors during the test."""
    CudaLike.record_log = []
    yield CudaLike.record_log
    CudaLike.record_log = []


@pytest.fixture
def fakes() -> Any:
    """Namespace of the stand-ins above."""
    import types

    return types.SimpleNamespace(
        CaptureHiddenMode=CaptureHiddenMode,
        FakeSpecAlgorithm=FakeSpecAlgorithm,
        NON_SPEC=NON_SPEC,
        SPEC_V1=SPEC_V1,
        SPEC_V2=SPEC_V2,
        FakeOrchestrator=FakeOrchestrator,
        FakeSamplingInfo=FakeSamplingInfo,
        FakeReq=FakeReq,
        FakeScheduleBatch=FakeScheduleBatch,
        make_batch=make_batch,
        CudaLike=CudaLike,
        cuda_like=cuda_like,
    )
