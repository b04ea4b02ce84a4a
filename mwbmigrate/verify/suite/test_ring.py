"""Group C: the keep-alive ring (``BatchRecordRing`` / upstream ``record_batch_in_overlap``).

Layout differs by design: upstream stores ``[batch, [field values in field order]]`` (a missing
field reads as None); the runtime stores ``[batch, {name: value}]`` of the whole instance (a
missing field is simply absent). Rotation and lifetime are the same contract.
"""

from __future__ import annotations

import dataclasses
import gc
import weakref
from typing import TYPE_CHECKING

import pytest
import torch

from mwbmigrate.verify.suite._fakes import FakeSamplingInfo, StubOrchestrator

if TYPE_CHECKING:  # annotations only: the fixtures hand these in
    from mwbmigrate.verify.suite._impls import Impl

pytestmark = pytest.mark.contract("ring")


def test_ring_rotation_and_slot_layout(impl: Impl) -> None:
    ring = impl.make_ring()
    assert impl.ring_slots(ring) == (None, None) and impl.ring_index(ring) == 0
    batches = [impl.make_batch() for _ in range(3)]
    indices = []
    for batch in batches:
        impl.record(ring, batch)
        indices.append(impl.ring_index(ring))
    assert indices == [1, 0, 1]  # a fresh ring writes slot 1 first
    slots = impl.ring_slots(ring)
    assert slots[1][0] is batches[2] and slots[0][0] is batches[1]
    assert not any(slot[0] is batches[0] for slot in slots), "record 3 must release record 1"
    for slot in slots:
        assert isinstance(slot, list)  # a list, so extra refs can be appended
    names = [f.name for f in dataclasses.fields(batches[2])]
    values = slots[1][1]
    if impl.profile["ring"] == "upstream":
        assert isinstance(values, list) and len(values) == len(names)
    else:
        assert isinstance(values, dict) and set(names) <= set(values)

    # A declared field missing on the instance does not make the pin fail.
    holey = impl.make_batch()
    input_ids = holey.input_ids
    del holey.input_ids
    impl.record(ring, holey)
    values = impl.ring_slots(ring)[impl.ring_index(ring)][1]
    if impl.profile["ring"] == "upstream":
        assert values[names.index("input_ids")] is None
    else:
        assert "input_ids" not in values
    holey.input_ids = input_ids

    extra = object()
    impl.keep_alive(ring, extra)
    assert impl.ring_slots(ring)[impl.ring_index(ring)][-1] is extra


@pytest.mark.parametrize("what", ["tensor", "forward_copy"])
def test_ring_keepalive_two_iterations(impl: Impl, what: str) -> None:
    ring = impl.make_ring()
    if what == "tensor":
        batch = impl.make_batch()
        tensor = torch.zeros(8)
        batch.input_ids = tensor
        ref = weakref.ref(tensor)
        del tensor
        impl.record(ring, batch)  # record 1
        batch.input_ids = None
    else:
        if not impl.supports("isolation"):
            pytest.fail("ring without isolation: nothing pins a forward copy")
        batch = impl.make_batch(sampling_info=FakeSamplingInfo(penalizer_orchestrator=StubOrchestrator()))
        with impl.isolation(batch, ring):  # record 1, after the swap
            ref = weakref.ref(batch.sampling_info)
        assert batch.sampling_info is not ref()
    gc.collect()
    assert ref() is not None, "released right after its own record"
    impl.record(ring, impl.make_batch())  # record 2
    gc.collect()
    assert ref() is not None, "released one record too early"
    impl.record(ring, impl.make_batch())  # record 3
    gc.collect()
    assert ref() is None, "still alive after record N+2"
