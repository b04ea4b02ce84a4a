"""Group E (CPU part): the ``req_pool_indices_cpu`` host-mirror helpers.

Scenarios re-expressed from PR #28514's first test file (restore before decode, clear on
filter-to-empty, restore before merge) and the later invariant style (mirror ==
device tensor ``.cpu()``). The stand-in batch in conftest applies the helpers where a
migrated ``ScheduleBatch`` does.
"""

from __future__ import annotations

import random
import types

import pytest
import torch

from mwbmigrate.runtime import (
    ReqPoolIndices,
    build_req_pool_indices,
    clear_req_pool_metadata,
    ensure_req_pool_indices_cpu,
)


def assert_mirror_invariant(batch):
    mirror = batch.req_pool_indices_cpu
    assert mirror is not None
    assert mirror.dtype == torch.int64 and mirror.device.type == "cpu"
    assert torch.equal(mirror, batch.req_pool_indices.cpu())
    assert mirror.numel() == len(batch.reqs) == batch.seq_lens.numel()


def test_ensure_restores_a_missing_mirror(fakes):
    batch = fakes.make_batch([4, 7], mirror=False)
    batch.req_pool_indices = batch.req_pool_indices.to(torch.int32)  # int64 regardless

    mirror = ensure_req_pool_indices_cpu(batch)

    assert mirror is batch.req_pool_indices_cpu
    assert mirror.dtype == torch.int64 and mirror.tolist() == [4, 7]
    assert mirror.data_ptr() != batch.req_pool_indices.data_ptr()  # a copy, never an alias
    assert ensure_req_pool_indices_cpu(batch) is mirror  # idempotent


def test_ensure_is_a_noop_when_present_or_when_there_is_nothing(fakes):
    batch = fakes.make_batch([4])
    present = batch.req_pool_indices_cpu
    assert ensure_req_pool_indices_cpu(batch) is present
    empty = types.SimpleNamespace(req_pool_indices=None, req_pool_indices_cpu=None)
    assert ensure_req_pool_indices_cpu(empty) is None and empty.req_pool_indices_cpu is None


def test_prepare_for_decode_restores_missing_mirror(fakes):
    batch = fakes.make_batch([4], mirror=False)
    seen = []

    def hisparse_bookkeeping(b):  # upstream does int(req_pool_indices_cpu[i]) here
        seen.append(b.req_pool_indices_cpu)
        int(b.req_pool_indices_cpu[0])

    batch.prepare_for_decode(hisparse_bookkeeping)
    assert len(seen) == 1 and seen[0] is not None and seen[0].tolist() == [4]
    assert_mirror_invariant(batch)


def test_filter_to_empty_clears_pool_metadata(fakes):
    batch = fakes.make_batch([1, 2])
    for req in batch.reqs:
        req.done = True
    batch.filter_batch()

    assert batch.reqs == []
    for name, dtype in [
        ("req_pool_indices", torch.int64),
        ("req_pool_indices_cpu", torch.int64),
        ("seq_lens", torch.int64),
        ("seq_lens_cpu", torch.int64),
        ("orig_seq_lens", torch.int32),
    ]:
        tensor = getattr(batch, name)
        assert tensor.numel() == 0 and tensor.dtype == dtype, name
        assert tensor.device.type == "cpu"
    assert batch.seq_lens_sum == 0 and batch.out_cache_loc is None

    # The #21514 scenario: merging the emptied batch must not bring stale rows along.
    running = fakes.make_batch([5, 6])
    running.merge_batch(batch)
    assert len(running.reqs) == running.seq_lens.numel() == running.req_pool_indices_cpu.numel() == 2
    assert_mirror_invariant(running)


def test_clear_is_idempotent_and_finds_the_device():
    batch = types.SimpleNamespace(req_pool_indices=torch.tensor([3], dtype=torch.int64), seq_lens_sum=10)
    clear_req_pool_metadata(batch)  # no batch.device: the existing tensor's device
    first = {k: (v.dtype, v.device, v.numel()) if isinstance(v, torch.Tensor) else v for k, v in vars(batch).items()}
    clear_req_pool_metadata(batch)
    second = {k: (v.dtype, v.device, v.numel()) if isinstance(v, torch.Tensor) else v for k, v in vars(batch).items()}
    assert first == second
    assert first["seq_lens_sum"] == 0 and first["out_cache_loc"] is None
    assert first["orig_seq_lens"] == (torch.int32, torch.device("cpu"), 0)

    bare = types.SimpleNamespace()
    clear_req_pool_metadata(bare)  # nothing to go by: CPU
    assert bare.seq_lens.device.type == "cpu" and bare.req_pool_indices.numel() == 0


def test_clear_uses_batch_device(fakes):
    batch = fakes.make_batch()
    batch.device = "meta"  # proves the device comes from batch.device, without a GPU
    clear_req_pool_metadata(batch)
    assert batch.req_pool_indices.device.type == "meta"
    assert batch.seq_lens.device.type == "meta" and batch.orig_seq_lens.device.type == "meta"
    assert batch.req_pool_indices_cpu.device.type == "cpu" and batch.seq_lens_cpu.device.type == "cpu"


@pytest.mark.parametrize("self_mirror,other_mirror", [(False, False), (False, True), (True, False)])
def test_merge_restores_missing_mirror(fakes, self_mirror, other_mirror):
    left = fakes.make_batch([1, 2], mirror=self_mirror)
    right = fakes.make_batch([3], mirror=other_mirror)
    left.merge_batch(right)
    assert left.req_pool_indices_cpu.tolist() == [1, 2, 3]
    assert_mirror_invariant(left)


def test_upstream_merge_without_the_fix_fails():
    """Control: what upstream's unguarded torch.cat does with a None mirror."""
    with pytest.raises(TypeError):
        torch.cat([torch.tensor([1, 2]), None])


def test_build_req_pool_indices(fakes):
    reqs = [fakes.FakeReq(i) for i in (8, 3, 5)]
    built = build_req_pool_indices(iter(reqs), "cpu")  # any iterable, read once
    assert isinstance(built, ReqPoolIndices)
    device_t, mirror = built
    assert device_t.dtype == mirror.dtype == torch.int64
    assert torch.equal(mirror, device_t.cpu()) and mirror.tolist() == [8, 3, 5]
    assert mirror.data_ptr() != device_t.data_ptr()  # independent even on the CPU
    again = build_req_pool_indices(reqs, "cpu")
    assert torch.equal(again.req_pool_indices, device_t) and torch.equal(again.req_pool_indices_cpu, mirror)
    empty = build_req_pool_indices([], "cpu")
    assert empty.req_pool_indices.numel() == 0 and empty.req_pool_indices_cpu.dtype == torch.int64


def test_post_fix_of_a_builder_output_missing_the_mirror(fakes):
    """0.5.13's hisparse builder set only the device tensor; ensure() repairs its output."""
    reqs = [fakes.FakeReq(i) for i in (2, 9)]
    batch = fakes.make_batch([2, 9], mirror=False)
    batch.req_pool_indices = build_req_pool_indices(reqs, "cpu").req_pool_indices
    ensure_req_pool_indices_cpu(batch)
    assert_mirror_invariant(batch)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_filter_merge_round_trip_and_idempotence(fakes, seed):
    rng = random.Random(seed)
    next_idx = iter(range(1000, 100000))
    batch = fakes.make_batch([next(next_idx) for _ in range(3)])
    for _ in range(200):
        op = rng.choice(["filter", "filter_all", "merge", "drop_mirror", "decode"])
        if op == "filter" and batch.reqs:
            keep = sorted(rng.sample(range(len(batch.reqs)), rng.randint(1, len(batch.reqs))))
            batch.filter_batch(keep)
        elif op == "filter_all":
            for req in batch.reqs:
                req.done = True
            batch.filter_batch()
            clear_req_pool_metadata(batch)  # applying it twice equals once
        elif op == "merge":
            other = fakes.make_batch([next(next_idx) for _ in range(rng.randint(1, 3))], mirror=rng.random() < 0.5)
            batch.merge_batch(other)
        elif op == "drop_mirror":
            batch.req_pool_indices_cpu = None
            mirror = ensure_req_pool_indices_cpu(batch)
            assert ensure_req_pool_indices_cpu(batch) is mirror  # twice equals once
        elif op == "decode" and batch.reqs:
            batch.prepare_for_decode(lambda b: None)
        assert_mirror_invariant(batch)
        assert batch.orig_seq_lens.numel() == len(batch.reqs)
