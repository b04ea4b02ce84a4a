"""Group E: the request-pool CPU mirror ``req_pool_indices_cpu`` (upstream PR 28514's scenarios).

A ``fixed`` implementation must pass the three scenarios: decode restores a missing mirror before
anything reads it, filter-to-empty clears all request-pool metadata, merge restores a missing
mirror on both sides. Upstream (0.5.13 through 0.5.23) ships none of these defensive parts; for an
``upstream`` profile each test asserts the documented failure instead, naming it.
"""

from __future__ import annotations

import dataclasses
import random
from typing import TYPE_CHECKING, Any

import pytest
import torch

from mwbmigrate.verify.suite._fakes import Req

if TYPE_CHECKING:  # annotations only: the fixtures hand these in
    from mwbmigrate.verify.suite._impls import Impl

pytestmark = pytest.mark.contract("req_pool")

POOL_FIELDS = {  # name -> dtype; all empty after filter-to-empty
    "req_pool_indices": torch.int64,
    "req_pool_indices_cpu": torch.int64,
    "seq_lens": torch.int64,
    "seq_lens_cpu": torch.int64,
    "orig_seq_lens": torch.int32,
}


def _fixed(impl: Impl) -> bool:
    return impl.profile["req_pool"] == "fixed"


def _assert_mirror(batch: Any) -> None:
    mirror = batch.req_pool_indices_cpu
    assert mirror is not None
    assert mirror.dtype == torch.int64 and mirror.device.type == "cpu"
    assert torch.equal(mirror, batch.req_pool_indices.cpu())  # the invariant, not the input
    assert mirror.numel() == len(batch.reqs) == batch.seq_lens.numel()


class Coordinator:
    """HiSparse coordinator spy: what the mirror was *when* decode bookkeeping ran."""

    def __init__(self) -> None:
        self.seen: list[torch.Tensor | None] = []

    def map_last_loc_to_buffer(self, *args: Any) -> None:
        mirror = args[-1]
        self.seen.append(None if mirror is None else mirror.clone())


def test_prepare_for_decode_restores_missing_mirror(impl: Impl) -> None:
    coordinator = Coordinator()
    batch = impl.make_pool_batch([4], [10], mirror=False, coordinator=coordinator)
    impl.prepare_for_decode(batch)
    assert batch.seq_lens.tolist() == [11]
    assert len(coordinator.seen) == 1
    if _fixed(impl):
        _assert_mirror(batch)
        assert coordinator.seen[0] is not None and coordinator.seen[0].tolist() == [4]
    else:
        # Upstream: nothing restores it; HiSparse gets None (the #28121 scheduler crash).
        assert batch.req_pool_indices_cpu is None
        assert coordinator.seen == [None]


def test_filter_to_empty_clears_pool_metadata(impl: Impl) -> None:
    batch = impl.make_pool_batch([7], [10], mirror=True, finished=True)
    impl.filter_batch(batch)
    assert len(batch.reqs) == 0
    running = impl.make_pool_batch([1, 2], [5, 6], mirror=True)
    if _fixed(impl):
        for name, dtype in POOL_FIELDS.items():
            value = getattr(batch, name)
            assert value is not None and value.numel() == 0, name
            assert value.dtype == dtype, name
            assert value.device.type == "cpu", name
        assert batch.seq_lens_sum == 0
        assert batch.out_cache_loc is None
        impl.merge_batch(running, batch)  # the #21514 path: merging the emptied batch
        assert len(running.reqs) == running.seq_lens.numel() == running.req_pool_indices_cpu.numel() == 2
        _assert_mirror(running)
    else:
        # Upstream: "Stale tensors are left as-is"; merging the emptied batch breaks the sizes.
        assert batch.req_pool_indices.numel() == 1 and batch.seq_lens.numel() == 1
        assert batch.seq_lens_sum == 10
        impl.merge_batch(running, batch)
        assert len(running.reqs) == 2 and running.seq_lens.numel() == 3


@pytest.mark.parametrize("self_mirror,other_mirror", [(False, False), (False, True), (True, False)])
def test_merge_restores_missing_mirror(impl: Impl, self_mirror: bool, other_mirror: bool) -> None:
    batch = impl.make_pool_batch([1, 2], [5, 6], mirror=self_mirror)
    other = impl.make_pool_batch([3], [7], mirror=other_mirror)
    if _fixed(impl):
        impl.merge_batch(batch, other)
        assert batch.req_pool_indices_cpu.tolist() == [1, 2, 3]
        _assert_mirror(batch)
    else:
        with pytest.raises(TypeError):  # upstream: torch.cat on a None mirror
            impl.merge_batch(batch, other)


@pytest.mark.contract("hisparse_builder")
def test_build_hisparse_decode_batch_populates_mirror(impl: Impl) -> None:
    reqs = [Req(5, 3), Req(8, 4)]
    for req in reqs:
        req.output_ids = [11]
    batch = impl.build_decode_batch(reqs)
    if impl.profile["hisparse_builder"] == "fixed":
        assert batch.req_pool_indices_cpu is not None
        assert batch.req_pool_indices_cpu.dtype == torch.int64
        assert torch.equal(batch.req_pool_indices_cpu, batch.req_pool_indices.cpu())
        assert batch.req_pool_indices_cpu.data_ptr() != batch.req_pool_indices.data_ptr()
    else:
        assert batch.req_pool_indices_cpu is None  # 0.5.13: the device tensor only (fixed in 0.5.14)


@pytest.mark.contract("req_pool", profile="fixed")
def test_filter_merge_round_trip_and_idempotence(impl: Impl) -> None:
    rng = random.Random(20260617)
    ensure, clear = impl.req_pool_helpers()
    next_index = iter(range(1000, 100000))

    def fresh(size: int, mirror: bool) -> Any:
        indices = [next(next_index) for _ in range(size)]
        return impl.make_pool_batch(indices, [rng.randint(1, 50) for _ in indices], mirror=mirror)

    batch = fresh(3, True)
    for _step in range(200):
        op = rng.choice(["filter", "filter_empty", "merge", "decode_missing"])
        if op == "filter" and batch.reqs:
            keep = sorted(rng.sample(range(len(batch.reqs)), rng.randint(1, len(batch.reqs))))
            impl.filter_batch(batch, keep)
        elif op == "filter_empty":
            for req in batch.reqs:
                req._finished = True
            impl.filter_batch(batch)
            for req in batch.reqs:
                req._finished = False
        elif op == "merge":
            impl.merge_batch(batch, fresh(rng.randint(1, 3), rng.random() < 0.5))
        elif op == "decode_missing":
            batch.req_pool_indices_cpu = None
            impl.prepare_for_decode(batch)
        _assert_mirror(batch)

        # Each helper twice equals once.
        mirror = ensure(batch)
        assert ensure(batch) is mirror and batch.req_pool_indices_cpu is mirror
    empty = fresh(2, True)
    clear(empty)
    once = {name: getattr(empty, name) for name in (*POOL_FIELDS, "out_cache_loc", "seq_lens_sum")}
    clear(empty)
    for name, value in once.items():
        again = getattr(empty, name)
        if isinstance(value, torch.Tensor):
            assert again.dtype == value.dtype and again.device == value.device and again.numel() == 0
        else:
            assert again == value

    if impl.supports("isolation"):
        fields = [f.name for f in dataclasses.fields(batch)]
        before = {name: getattr(batch, name) for name in fields}
        for _ in range(2):
            with impl.isolation(batch, gate=None):
                pass
        assert all(getattr(batch, name) is before[name] for name in fields)
