"""Group C: ``BatchRecordRing`` (SGLang 0.5.13 ``record_batch_in_overlap``), keep-alive by weakref."""

from __future__ import annotations

import dataclasses
import gc
import weakref

import pytest
import torch

from mwbmigrate.runtime import BatchRecordRing, EmptyRingError, overlap_forward_isolation


def test_ring_rotation_and_slot_layout(fakes):
    ring = BatchRecordRing()
    batches = [fakes.make_batch() for _ in range(3)]
    seen_slots = []
    for batch in batches:
        slot = ring.record(batch)
        seen_slots.append(ring.index)
        assert ring.current is slot
        assert type(slot) is list and slot[0] is batch  # a list, so keep_alive can extend it
        values = slot[1]
        assert set(values) >= {f.name for f in dataclasses.fields(batch)}
        assert all(values[f.name] is getattr(batch, f.name) for f in dataclasses.fields(batch))
    assert seen_slots == [1, 0, 1]  # a fresh ring writes slot 1 first, as upstream
    assert ring.slots[0][0] is batches[1] and ring.slots[1][0] is batches[2]
    assert len(ring) == 2


def test_missing_field_does_not_raise(fakes):
    batch = fakes.make_batch()
    del batch.input_ids  # declared but missing on the instance
    slot = BatchRecordRing().record(batch)
    assert "input_ids" not in slot[1] and slot[1]["seq_lens"] is batch.seq_lens


def test_keep_alive_extends_the_current_slot(fakes):
    ring = BatchRecordRing()
    with pytest.raises(EmptyRingError):
        ring.keep_alive(object())
    first = fakes.make_batch()
    ring.record(first)
    extra_a, extra_b = object(), object()
    ring.keep_alive(extra_a, extra_b)
    assert ring.current[2:] == [extra_a, extra_b]
    ring.record(fakes.make_batch())
    assert len(ring.current) == 2  # the new slot starts clean
    assert ring.slots[1][2:] == [extra_a, extra_b]


@pytest.mark.parametrize("depth", [0, -1, 1.5, True])
def test_depth_must_be_a_positive_int(depth):
    with pytest.raises(ValueError, match="depth"):
        BatchRecordRing(depth)


def _alive_after_each_record(ring, recorded_object_factory, fakes, n_records):
    """Record a batch holding a fresh object, drop every other reference, then keep
    recording other batches; return whether the object is alive after each record."""
    batch = fakes.make_batch()
    obj = recorded_object_factory()
    batch.input_ids = obj
    ref = weakref.ref(obj)
    ring.record(batch)
    batch.input_ids = None  # the batch no longer references it either
    del obj
    alive = []
    gc.collect()
    alive.append(ref() is not None)
    for _ in range(n_records - 1):
        ring.record(fakes.make_batch())
        gc.collect()
        alive.append(ref() is not None)
    return alive


@pytest.mark.parametrize("depth", [1, 2, 3])
def test_ring_keepalive_releases_at_record_n_plus_depth(fakes, depth):
    alive = _alive_after_each_record(BatchRecordRing(depth), lambda: torch.arange(4), fakes, depth + 1)
    # alive after records N .. N+depth-1, released by record N+depth
    assert alive == [True] * depth + [False]


def test_ring_keeps_the_forward_copy_alive(fakes):
    """Under overlap the pinned values include the forward copy of sampling_info."""
    ring = BatchRecordRing()
    batch = fakes.make_batch(spec_algorithm=fakes.SPEC_V2)
    with overlap_forward_isolation(batch, ring):
        ref = weakref.ref(batch.sampling_info)
    gc.collect()
    assert ref() is not None  # restored on the batch, still pinned by the ring
    ring.record(fakes.make_batch())
    gc.collect()
    assert ref() is not None
    ring.record(fakes.make_batch())
    gc.collect()
    assert ref() is None


def test_keep_alive_refs_released_with_their_slot(fakes):
    ring = BatchRecordRing()
    ring.record(fakes.make_batch())
    extra = torch.zeros(3)
    ref = weakref.ref(extra)
    ring.keep_alive(extra)
    del extra
    ring.record(fakes.make_batch())
    gc.collect()
    assert ref() is not None
    ring.record(fakes.make_batch())
    gc.collect()
    assert ref() is None


def test_clear_releases_everything(fakes):
    ring = BatchRecordRing()
    batch = fakes.make_batch()
    ref = weakref.ref(batch)
    ring.record(batch)
    del batch
    gc.collect()
    assert ref() is not None
    ring.clear()
    gc.collect()
    assert ref() is None and len(ring) == 0 and ring.slots == (None, None)
