"""Group B: ``overlap_forward_isolation`` (SGLang 0.5.13 ``_forward_isolation``, and our fixes)."""

from __future__ import annotations

import dataclasses
import types
from typing import Any, Optional

import pytest
import torch
from hypothesis import HealthCheck, given, settings, strategies as st

from mwbmigrate.runtime import (
    FORWARD_OVERRIDE_NAMES,
    BatchRecordRing,
    ForwardIsolation,
    NestedIsolationError,
    is_isolated,
    overlap_forward_isolation,
    restore_batch,
    snapshot_batch,
)

RINGS = pytest.mark.parametrize("use_ring", [False, True], ids=["no-ring", "ring"])


def _ring(use_ring: bool) -> Optional[BatchRecordRing]:
    return BatchRecordRing() if use_ring else None


def _field_names(batch: Any) -> list:
    return [f.name for f in dataclasses.fields(batch)]


@RINGS
def test_nonspec_restores_only_sampling_info(fakes, use_ring):
    batch = fakes.make_batch(spec_algorithm=fakes.NON_SPEC)
    sampling, reqs = batch.sampling_info, batch.reqs
    new_ids, new_reqs = torch.tensor([9]), [fakes.FakeReq(9)]

    with overlap_forward_isolation(batch, _ring(use_ring)) as iso:
        assert iso.snapshot is None
        batch.input_ids, batch.reqs = new_ids, new_reqs

    assert batch.sampling_info is sampling
    assert batch.input_ids is new_ids and batch.reqs is new_reqs  # other rebinds persist
    assert reqs is not new_reqs


def _extra_batch_class(fakes):
    @dataclasses.dataclass
    class SubBatch(fakes.FakeScheduleBatch):
        extra_field: Any = None

    return SubBatch


@pytest.mark.parametrize("subclass", [False, True], ids=["base", "subclass"])
@pytest.mark.parametrize("gate", [None, "spec_v2", "any_spec"])
@pytest.mark.parametrize("algo", ["SPEC_V1", "SPEC_V2"])
def test_spec_full_snapshot_restore(fakes, subclass, gate, algo):
    cls = _extra_batch_class(fakes) if subclass else fakes.FakeScheduleBatch
    batch = fakes.make_batch(cls=cls, spec_algorithm=getattr(fakes, algo))
    before = {name: getattr(batch, name) for name in _field_names(batch)}
    sampling = batch.sampling_info
    full = algo == "SPEC_V2" or gate == "any_spec"

    with overlap_forward_isolation(batch, snapshot=gate) as iso:
        assert (iso.snapshot is not None) is full
        for name in _field_names(batch):
            setattr(batch, name, object())

    if full:
        for name, value in before.items():
            assert getattr(batch, name) is value, name
    else:
        assert batch.sampling_info is sampling
        kept = set(FORWARD_OVERRIDE_NAMES) | {"sampling_info"}  # those two are reset/restored
        assert all(getattr(batch, n) is not v for n, v in before.items() if n not in kept)


@pytest.mark.parametrize("forced", [True, False])
def test_snapshot_true_false_force_the_policy(fakes, forced):
    batch = fakes.make_batch(spec_algorithm=fakes.NON_SPEC if forced else fakes.SPEC_V2)
    ids = batch.input_ids
    with overlap_forward_isolation(batch, snapshot=forced):
        batch.input_ids = None
    assert (batch.input_ids is ids) is forced


def test_bad_snapshot_policy_is_rejected(fakes):
    with pytest.raises(ValueError, match="any_spec"):
        overlap_forward_isolation(fakes.make_batch(), snapshot="v2")


def test_gate_without_is_spec_v2_property(fakes):
    plain = types.SimpleNamespace(spec_algorithm=fakes.SPEC_V2, sampling_info=None, x=1)
    with overlap_forward_isolation(plain):
        plain.x = 2
    assert plain.x == 1  # fell back to spec_algorithm.supports_spec_v2()
    bare = types.SimpleNamespace(x=1)
    with overlap_forward_isolation(bare):
        bare.x = 2
    assert bare.x == 2  # no spec_algorithm: not speculative


class Boom(Exception):
    pass


@pytest.mark.parametrize("algo", ["NON_SPEC", "SPEC_V2"])
@RINGS
def test_restore_on_exception(fakes, algo, use_ring):
    batch = fakes.make_batch(spec_algorithm=getattr(fakes, algo))
    sampling, ids = batch.sampling_info, batch.input_ids
    ring = _ring(use_ring)
    error = Boom()

    with pytest.raises(Boom) as info:
        with overlap_forward_isolation(batch, ring) as iso:
            forward_copy = iso.forward_sampling_info
            batch.input_ids = torch.tensor([7])
            raise error

    assert info.value is error
    assert batch.sampling_info is sampling
    assert (batch.input_ids is ids) is (algo == "SPEC_V2")
    assert not is_isolated(batch)
    if ring is not None:
        assert ring.current[0] is batch  # still pinned after the exception
        assert ring.current[1]["sampling_info"] is forward_copy


@RINGS
def test_sampling_info_swap(fakes, use_ring):
    batch = fakes.make_batch(spec_algorithm=fakes.SPEC_V2)
    original = batch.sampling_info
    orchestrator = original.penalizer_orchestrator
    ring = _ring(use_ring)

    with overlap_forward_isolation(batch, ring) as iso:
        copy = batch.sampling_info
        assert copy is not original and copy is iso.forward_sampling_info
        assert iso.scheduler_sampling_info is original
        made = original.copies_made
        assert len(made) == 1 and made[0] is copy  # copy_for_forward called exactly once
        assert copy.penalizer_orchestrator is None
        assert copy.acc_additive_penalties is original.acc_additive_penalties  # shallow
        if ring is not None:
            pinned = ring.current[1]
            assert pinned["sampling_info"] is copy  # the copy, not the scheduler's object
            assert all(v is not original for v in pinned.values())

    assert batch.sampling_info is original
    assert original.penalizer_orchestrator is orchestrator


def test_penalty_applied_once_across_repeated_init_new(fakes):
    batch = fakes.make_batch(spec_algorithm=fakes.SPEC_V2)
    original = batch.sampling_info
    orchestrator = original.penalizer_orchestrator
    with overlap_forward_isolation(batch):
        for _ in range(3):  # draft, verify, draft-extend: three init_new-like passes
            logits = torch.zeros(2, 4)
            batch.sampling_info.apply_logits_bias(logits)
            assert torch.equal(logits, torch.ones(2, 4))
    assert orchestrator.accumulate_calls == 1
    assert orchestrator.apply_calls == 0
    # Control: the scheduler's object would apply it twice (buffer + orchestrator).
    logits = torch.zeros(2, 4)
    original.apply_logits_bias(logits)
    assert torch.equal(logits, torch.full((2, 4), 2.0))


@RINGS
@pytest.mark.parametrize("algo", ["NON_SPEC", "SPEC_V2"])
def test_sampling_info_none(fakes, use_ring, algo):
    batch = fakes.make_batch(with_sampling=False, spec_algorithm=getattr(fakes, algo))
    with overlap_forward_isolation(batch, _ring(use_ring)) as iso:
        assert batch.sampling_info is None and iso.forward_sampling_info is None
    assert batch.sampling_info is None


def test_batch_without_sampling_info_attribute():
    batch = types.SimpleNamespace(x=1)
    with overlap_forward_isolation(batch, snapshot=True):
        pass
    assert vars(batch) == {"x": 1}  # no sampling_info attribute appears


@pytest.mark.parametrize("algo", ["NON_SPEC", "SPEC_V2"])
def test_snapshot_covers_non_field_attributes(fakes, algo):
    """Upstream's known limitation (non-fields never restored), fixed for snapshots."""
    batch = fakes.make_batch(spec_algorithm=getattr(fakes, algo))
    batch.dynamic_before = "entry"
    with overlap_forward_isolation(batch):
        batch.dynamic_before = "rebound inside"
        batch.dynamic_inside = "created inside"
    if algo == "SPEC_V2":
        assert batch.dynamic_before == "entry"
        assert not hasattr(batch, "dynamic_inside")  # exactly the entry state
    else:  # no snapshot: everything but sampling_info persists, as upstream
        assert batch.dynamic_before == "rebound inside"
        assert batch.dynamic_inside == "created inside"


def test_deleted_attributes_come_back(fakes):
    batch = fakes.make_batch(spec_algorithm=fakes.SPEC_V2)
    ids = batch.input_ids
    batch.extra = 1
    with overlap_forward_isolation(batch):
        del batch.input_ids, batch.extra
        batch.created = 2  # same attribute count as at entry
    assert batch.input_ids is ids and batch.extra == 1 and not hasattr(batch, "created")


@dataclasses.dataclass(slots=True)
class SlotsBatch:
    spec_algorithm: Any
    sampling_info: Any = None
    input_ids: Any = None
    seq_lens: Any = None
    capture_hidden_mode: Any = None

    @property
    def is_spec_v2(self) -> bool:
        return self.spec_algorithm.supports_spec_v2()


class PropertyBatch:
    """Not a dataclass: state behind a property with a setter, plus __dict__ attributes."""

    def __init__(self, spec_algorithm: Any) -> None:
        self.spec_algorithm = spec_algorithm
        self.sampling_info = None
        self._seq_lens = "entry"

    @property
    def seq_lens(self) -> Any:
        return self._seq_lens

    @seq_lens.setter
    def seq_lens(self, value: Any) -> None:
        self._seq_lens = value

    @property
    def is_spec_v2(self) -> bool:
        return self.spec_algorithm.supports_spec_v2()


SETATTR_LOG: list = []


class CountingSetattr(PropertyBatch):
    def __setattr__(self, name: str, value: Any) -> None:
        SETATTR_LOG.append(name)  # kept outside the instance, so no restore rewinds it
        object.__setattr__(self, name, value)


def test_slots_dataclass_is_restored(fakes):
    ids = torch.tensor([1])
    batch = SlotsBatch(fakes.SPEC_V2, fakes.make_batch().sampling_info, ids)
    sampling = batch.sampling_info
    with overlap_forward_isolation(batch) as iso:
        assert set(iso.snapshot) >= {"input_ids", "seq_lens", "sampling_info"}
        batch.input_ids = None
        batch.seq_lens = "inside"
        batch.capture_hidden_mode = 2
    assert batch.input_ids is ids and batch.seq_lens is None and batch.sampling_info is sampling
    assert batch.capture_hidden_mode is None  # one-shot reset works on slots too


def test_property_and_custom_setattr_batches(fakes):
    for cls in (PropertyBatch, CountingSetattr):
        batch = cls(fakes.SPEC_V2)
        with overlap_forward_isolation(batch):
            batch.seq_lens = "inside"
            batch.created = True
        assert batch.seq_lens == "entry" and not hasattr(batch, "created")
    # Only changed values go back through a custom __setattr__.
    batch = CountingSetattr(fakes.SPEC_V2)
    batch.sampling_info = fakes.make_batch().sampling_info
    SETATTR_LOG.clear()
    with overlap_forward_isolation(batch):
        batch.seq_lens = "inside"  # the property stores it in _seq_lens
    assert SETATTR_LOG == [
        "sampling_info",  # the swap to the forward copy
        "seq_lens",  # inside
        "_seq_lens",  # inside, from the property setter
        # restore, in attribute order: only the two changed entries are set again
        "sampling_info",
        "_seq_lens",
    ]


def test_frozen_batch_that_nothing_changed(fakes):
    @dataclasses.dataclass(frozen=True)
    class Frozen:
        spec_algorithm: Any
        value: int = 1

        @property
        def is_spec_v2(self) -> bool:
            return True

    batch = Frozen(fakes.SPEC_V2)
    with overlap_forward_isolation(batch):
        pass
    assert batch.value == 1


def test_nested_isolation_contract(fakes):
    batch = fakes.make_batch(spec_algorithm=fakes.SPEC_V2)
    entry = snapshot_batch(batch)
    original = batch.sampling_info
    with overlap_forward_isolation(batch):
        forward_copy = batch.sampling_info
        assert is_isolated(batch)
        with pytest.raises(NestedIsolationError, match="already inside"):
            with overlap_forward_isolation(batch):
                pytest.fail("the inner block must not run")
        assert batch.sampling_info is forward_copy  # the failed inner entry changed nothing
        made = original.copies_made
        assert len(made) == 1 and made[0] is forward_copy  # no second copy_for_forward
        # Another batch can be isolated meanwhile.
        other = fakes.make_batch()
        with overlap_forward_isolation(other):
            assert is_isolated(other)
    assert not is_isolated(batch)
    after = snapshot_batch(batch)
    assert after.keys() == entry.keys() and all(after[k] is entry[k] for k in entry)


@pytest.mark.parametrize("algo", ["NON_SPEC", "SPEC_V2"])
def test_pin_failure_does_not_leak_forward_copy(fakes, algo):
    """Upstream leaves the forward copy on the batch when the pin fails; we restore first."""

    class BrokenRing:
        def record(self, batch):
            raise Boom("ring not initialised")

    batch = fakes.make_batch(spec_algorithm=getattr(fakes, algo))
    original = batch.sampling_info
    with pytest.raises(Boom):
        with overlap_forward_isolation(batch, BrokenRing()):
            pytest.fail("the block must not run")
    assert batch.sampling_info is original
    assert not is_isolated(batch)
    with overlap_forward_isolation(batch):  # usable again
        pass


def test_copy_for_forward_failure_swaps_nothing(fakes):
    batch = fakes.make_batch(spec_algorithm=fakes.SPEC_V2)
    original = batch.sampling_info
    original.penalizer_orchestrator = None  # upstream's update_penalties then raises
    with pytest.raises(AttributeError, match="is_required"):
        with overlap_forward_isolation(batch):
            pass
    assert batch.sampling_info is original and not is_isolated(batch)


def test_no_ring_leaves_a_ring_untouched(fakes):
    ring = BatchRecordRing()
    batch = fakes.make_batch(spec_algorithm=fakes.SPEC_V2)
    with overlap_forward_isolation(batch):
        pass
    assert ring.slots == (None, None) and ring.index == 0


def test_isolation_object_is_single_use(fakes):
    batch = fakes.make_batch()
    iso = overlap_forward_isolation(batch)
    assert isinstance(iso, ForwardIsolation)
    with pytest.raises(RuntimeError, match="without a matching __enter__"):
        iso.__exit__(None, None, None)
    with iso:
        pass
    with pytest.raises(RuntimeError, match="only once"):
        with iso:
            pass


def test_field_names_are_computed_once_per_class(fakes, monkeypatch):
    @dataclasses.dataclass
    class FreshBatch(fakes.FakeScheduleBatch):
        pass

    calls = []
    real_fields = dataclasses.fields

    def counting_fields(obj):
        calls.append(obj)
        return real_fields(obj)

    monkeypatch.setattr(dataclasses, "fields", counting_fields)
    ring = BatchRecordRing()
    for _ in range(5):
        batch = fakes.make_batch(cls=FreshBatch, spec_algorithm=fakes.SPEC_V2)
        with overlap_forward_isolation(batch, ring):
            batch.input_ids = None
    assert len(calls) == 1


def test_enter_exit_twice_leaves_an_identical_state(fakes):
    batch = fakes.make_batch(spec_algorithm=fakes.SPEC_V2)
    entry = snapshot_batch(batch)
    for _ in range(2):
        with overlap_forward_isolation(batch, BatchRecordRing()):
            batch.seq_lens = batch.seq_lens + 1
    after = snapshot_batch(batch)
    assert list(after) == list(entry) and all(after[k] is entry[k] for k in entry)


def test_snapshot_and_restore_batch_helpers(fakes):
    batch = fakes.make_batch()
    snap = snapshot_batch(batch)
    ids = batch.input_ids
    for _ in range(2):  # the snapshot survives a restore and can be used again
        batch.input_ids = None
        batch.created = 1
        restore_batch(batch, snap)
        assert batch.input_ids is ids and not hasattr(batch, "created")
    assert snap["input_ids"] is ids and "created" not in snap


# Property test: any sequence of rebinds, deletions and creations inside a snapshot
# isolation ends in exactly the entry state; without a snapshot only sampling_info
# is restored.
NAMES = ["input_ids", "seq_lens", "reqs", "out_cache_loc", "extra_a", "extra_b", "extra_c"]
OPS = st.lists(st.tuples(st.sampled_from(["set", "del"]), st.sampled_from(NAMES)), max_size=12)


# ``fakes`` is a stateless namespace of classes, so sharing it across examples is fine.
@settings(
    max_examples=150, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(ops=OPS, spec=st.booleans(), pre_extra=st.booleans(), cls_kind=st.sampled_from(["dc", "slots"]))
def test_property_any_mutation_sequence(fakes, ops, spec, pre_extra, cls_kind):
    algo = fakes.SPEC_V2 if spec else fakes.NON_SPEC
    if cls_kind == "dc":
        batch = fakes.make_batch(spec_algorithm=algo)
        if pre_extra:
            batch.extra_a = "entry"
    else:
        batch = SlotsBatch(algo, fakes.make_batch().sampling_info, "ids")
    entry = snapshot_batch(batch)
    sampling = batch.sampling_info
    expected_nonspec = dict(entry)
    with overlap_forward_isolation(batch):
        for op, name in ops:
            if op == "set":
                try:
                    setattr(batch, name, object())
                except AttributeError:  # slots: no such attribute
                    continue
            else:
                try:
                    delattr(batch, name)
                except AttributeError:  # not set on the instance
                    pass
        inside = snapshot_batch(batch)
    if spec:
        after = snapshot_batch(batch)
        assert after.keys() == entry.keys() and all(after[k] is entry[k] for k in entry)
    else:
        inside["sampling_info"] = sampling
        for name in ("capture_hidden_mode", "seq_lens_cpu_cache", "return_hidden_states_before_norm"):
            if name in inside:
                inside[name] = expected_nonspec[name]
        after = snapshot_batch(batch)
        assert after.keys() == inside.keys() and all(after[k] is inside[k] for k in inside)
