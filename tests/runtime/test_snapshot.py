"""`worker_batch_snapshot` answers what `get_model_worker_batch()` returned, and leaves the batch alone."""

from __future__ import annotations

import copy
import dataclasses
import enum
import gc
import pickle
import sys
import threading
import types
from dataclasses import dataclass, field
from typing import Any

import pytest

from mwbmigrate.runtime import (
    WorkerBatchSnapshot,
    consume_forward_overrides,
    worker_batch_capture_mode,
    worker_batch_snapshot,
)
from mwbmigrate.runtime.snapshot import OLD_FIELDS


class Mode(enum.Enum):
    NULL = 0
    LAST = 1
    FULL = 2


class ForwardMode(enum.Enum):
    EXTEND = 1
    DECODE = 2

    def is_decode_or_idle(self) -> bool:
        return self is ForwardMode.DECODE


@dataclass
class Req:
    lora_id: str | None = None
    dllm_block_offset: int = 0
    grammar: Any = None


@dataclass
class SpecInfo:
    capture_hidden_mode: Mode = Mode.LAST


@dataclass
class SamplingInfo:
    grammars: Any = "unset"


@dataclass
class Batch:
    """The fields of 0.5.13's ScheduleBatch that the snapshot reads or pins."""

    reqs: list[Req] = field(default_factory=lambda: [Req("a", 0, "g0"), Req(None, 8, "g1")])
    forward_mode: ForwardMode = ForwardMode.EXTEND
    seq_lens: list[int] = field(default_factory=lambda: [3, 4])
    seq_lens_cpu: list[int] = field(default_factory=lambda: [3, 4])
    extend_lens: list[int] = field(default_factory=lambda: [3, 4])
    prefix_lens: list[int] = field(default_factory=lambda: [0, 0])
    extend_logprob_start_lens: list[int] = field(default_factory=lambda: [1, 1])
    return_hidden_states: bool = False
    spec_info: Any = None
    has_grammar: bool = False
    sampling_info: Any = field(default_factory=SamplingInfo)
    # 0.5.13's one-shot overrides.
    seq_lens_cpu_cache: Any = None
    capture_hidden_mode: Any = None
    return_hidden_states_before_norm: bool = False


@pytest.fixture(autouse=True)
def capture_hidden_mode_enum(monkeypatch):
    """SGLang's enum, where the snapshot finds it: in the already imported forward_batch_info."""
    module = types.ModuleType("sglang.srt.model_executor.forward_batch_info")
    module.CaptureHiddenMode = Mode  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, module.__name__, module)


def init_new(batch: Any) -> tuple[Any, Any, bool]:
    """0.5.13's consumption, as `ForwardBatch.init_new` does it: read, reset, derive."""
    capture, batch.capture_hidden_mode = batch.capture_hidden_mode, None
    cache, batch.seq_lens_cpu_cache = batch.seq_lens_cpu_cache, None
    before_norm, batch.return_hidden_states_before_norm = batch.return_hidden_states_before_norm, False
    if capture is None:
        capture = Mode.FULL if batch.return_hidden_states else Mode.NULL
    return capture, cache if cache is not None else batch.seq_lens_cpu, before_norm


def test_is_the_old_object_sharing_the_batch_objects():
    batch = Batch()
    snapshot = worker_batch_snapshot(batch)
    assert type(snapshot) is WorkerBatchSnapshot and isinstance(snapshot, WorkerBatchSnapshot)
    assert type(snapshot).__name__ == "ModelWorkerBatch" and not issubclass(type(snapshot), Batch)
    # A migrated `isinstance(x, ScheduleBatch)` (was `ModelWorkerBatch`) keeps its branch.
    assert isinstance(snapshot, Batch) and snapshot.__class__ is Batch
    assert snapshot.seq_lens is batch.seq_lens and snapshot.reqs is batch.reqs
    assert [f.name for f in dataclasses.fields(snapshot)] == [name for name, _ in OLD_FIELDS]
    assert sorted(vars(snapshot)) == sorted(name for name, _ in OLD_FIELDS)


def test_answers_attribute_probes_as_the_old_object():
    snapshot = worker_batch_snapshot(Batch())
    assert hasattr(snapshot, "extend_seq_lens") and hasattr(snapshot, "reqs")
    assert getattr(snapshot, "fork_only_field", "absent") == "absent"
    with pytest.raises(AttributeError, match="'ModelWorkerBatch' object has no attribute 'fork_only_field'"):
        snapshot.fork_only_field  # noqa: B018
    # What a release's consumers read beyond the old fields, as of the snapshot.
    assert snapshot.extend_lens == [3, 4] and snapshot.prefix_lens == [0, 0]
    assert snapshot.seq_lens_cpu_cache is None and snapshot.return_hidden_states is False


EVENTS: list[str] = []


@dataclass
class Watched(Batch):
    """A fork's batch class with dunders and hooks that a copy of it would run."""

    def __copy__(self):
        EVENTS.append("copy")
        return self

    def __reduce_ex__(self, protocol):
        EVENTS.append("reduce")
        return super().__reduce_ex__(protocol)

    def __init_subclass__(cls, **kwargs):
        EVENTS.append("subclass")

    def __post_init__(self):
        self.__dict__["built"] = True

    def __setattr__(self, name, value):
        if self.__dict__.get("built"):  # a write on a built batch, not the constructor's
            EVENTS.append(f"set {name}")
        object.__setattr__(self, name, value)

    def __del__(self):
        EVENTS.append("del")


def test_takes_the_snapshot_without_running_the_batch_class_code():
    EVENTS.clear()
    batch = Watched()
    snapshot = worker_batch_snapshot(batch, seq_lens_cpu_cache=[1, 1])
    init_new(snapshot)
    again = copy.deepcopy(pickle.loads(pickle.dumps(copy.copy(snapshot))))
    del snapshot, again
    gc.collect()
    assert EVENTS == []
    del batch
    gc.collect()
    assert EVENTS == ["del"]  # the batch's own finalizer, once


def test_fields_the_old_method_never_read_are_taken_without_running_code():
    class Mamba(Batch):
        reads: list[str] = []

        @property
        def mamba_cow_src_indices(self):
            Mamba.reads.append("property")
            return [1]

    batch = Mamba()
    batch.__dict__["decoding_reqs"] = ["r"]
    snapshot = worker_batch_snapshot(batch)
    assert Mamba.reads == []
    assert snapshot.mamba_cow_src_indices is None and snapshot.decoding_reqs == ["r"]


def test_equality_repr_and_asdict_are_the_old_dataclass_s():
    batch = Batch()
    first, second = worker_batch_snapshot(batch), worker_batch_snapshot(batch)
    assert first == second and first is not second
    assert repr(first).startswith("ModelWorkerBatch(forward_mode=<ForwardMode.EXTEND: 1>, input_ids=None,")
    exported = dataclasses.asdict(first)
    assert list(exported) == [name for name, _ in OLD_FIELDS] and exported["seq_lens"] == [3, 4]
    assert dataclasses.astuple(first)[3] == [3, 4]


def test_a_snapshot_equals_only_another_of_its_class_as_the_old_dataclass_did():
    """The generated dataclass `__eq__` tests `other.__class__ is self.__class__`, and a snapshot's
    `__class__` answers the batch's: comparing it with the batch would build the old fields' tuple
    from the batch. The old object compared unequal to anything of another class."""
    batch = Batch()
    snapshot = worker_batch_snapshot(batch)
    assert (snapshot == batch) is False and (batch == snapshot) is False and snapshot != batch
    assert snapshot in [batch, worker_batch_snapshot(batch)] and snapshot not in [batch]
    batch.fork_flag = 1
    forks = [worker_batch_snapshot(batch, fork_fields=("fork_flag",)) for _ in range(2)]
    assert forks[0] == forks[1] and (forks[0] == batch) is False and forks[0] != snapshot
    snapshot.seq_lens = [9]
    assert snapshot != worker_batch_snapshot(batch)
    with pytest.raises(TypeError):
        hash(snapshot)


def test_a_snapshot_compares_unequal_to_a_dataclass_batch_without_reading_its_fields():
    """SGLang's `ScheduleBatch` is a dataclass: handed `NotImplemented`, its generated `__eq__` would
    take the snapshot (whose `__class__` answers the batch's) for one of its own and read fields the
    old object never had. (`batch == snapshot`, the batch first, still runs that `__eq__`.)"""

    @dataclass(eq=True)
    class DataclassBatch(Batch):
        req_to_token_pool: Any = None

    batch = DataclassBatch()
    snapshot = worker_batch_snapshot(batch)
    assert (snapshot == batch) is False and snapshot != batch


def test_later_changes_of_the_batch_are_not_seen():
    batch = Batch()
    snapshot = worker_batch_snapshot(batch)
    batch.seq_lens = [9, 9]
    batch.forward_mode = ForwardMode.DECODE
    assert snapshot.seq_lens == [3, 4]
    assert snapshot.forward_mode is ForwardMode.EXTEND


def test_override_is_seq_lens_cpu_for_every_forward_and_nothing_is_left_on_the_batch():
    batch = Batch()
    snapshot = worker_batch_snapshot(batch, seq_lens_cpu_cache=[30, 40])
    assert snapshot.seq_lens_cpu == [30, 40]
    assert init_new(snapshot)[1] == [30, 40]
    assert init_new(snapshot)[1] == [30, 40]
    assert batch.seq_lens_cpu == [3, 4] and batch.seq_lens_cpu_cache is None
    assert init_new(batch)[1] == [3, 4]


def test_capture_mode_is_derived_when_taken_and_survives_forwards():
    spec = SpecInfo(Mode.LAST)
    batch = Batch(spec_info=spec)
    snapshot = worker_batch_snapshot(batch)
    spec.capture_hidden_mode = Mode.NULL
    assert snapshot.capture_hidden_mode is Mode.LAST
    assert init_new(snapshot)[0] is Mode.LAST
    assert init_new(snapshot)[0] is Mode.LAST
    assert snapshot.capture_hidden_mode is Mode.LAST
    assert batch.capture_hidden_mode is None


def test_capture_mode_full_when_the_batch_returns_hidden_states():
    batch = Batch(return_hidden_states=True, spec_info=SpecInfo(Mode.LAST))
    assert worker_batch_snapshot(batch).capture_hidden_mode is Mode.FULL


def test_a_write_on_the_snapshot_is_the_old_objects_field_and_a_reset_is_kept_out():
    batch = Batch(spec_info=SpecInfo(Mode.NULL))
    snapshot = worker_batch_snapshot(batch)
    snapshot.capture_hidden_mode = Mode.LAST
    snapshot.return_hidden_states_before_norm = True
    assert init_new(snapshot) == (Mode.LAST, [3, 4], True)
    assert init_new(snapshot) == (Mode.LAST, [3, 4], True)
    # A forward's reset comes straight after its read of the field, and is kept out; a program's own
    # write of the reset value is a field write (the rewrite reports one that follows a read).
    assert snapshot.return_hidden_states_before_norm is True
    snapshot.return_hidden_states_before_norm = False
    assert snapshot.return_hidden_states_before_norm is True
    snapshot.seq_lens = [3, 4]
    snapshot.return_hidden_states_before_norm = False
    assert snapshot.return_hidden_states_before_norm is False
    assert init_new(snapshot)[2] is False
    assert "seq_lens_cpu_cache" not in vars(snapshot)
    assert batch.capture_hidden_mode is None and batch.return_hidden_states_before_norm is False


def test_the_runtime_consumer_does_not_reset_a_snapshot():
    batch = Batch()
    snapshot = worker_batch_snapshot(batch, seq_lens_cpu_cache=[7, 7])
    snapshot.capture_hidden_mode = Mode.LAST
    consumed = consume_forward_overrides(snapshot, check_shape=False)
    assert consumed.capture_hidden_mode is Mode.LAST
    assert snapshot.capture_hidden_mode is Mode.LAST


def test_extend_fields_are_gated_in_decode_and_request_lists_are_taken_at_call_time():
    batch = Batch(forward_mode=ForwardMode.DECODE)
    snapshot = worker_batch_snapshot(batch)
    assert snapshot.extend_seq_lens is None and snapshot.extend_prefix_lens is None
    assert snapshot.extend_logprob_start_lens is None
    assert snapshot.extend_lens is None  # a consumer reads the old object's gated lengths
    batch.reqs[0].lora_id = "changed"
    assert snapshot.lora_ids == ["a", None] and snapshot.dllm_block_offsets == [0, 8]
    extend = worker_batch_snapshot(Batch())
    assert extend.extend_seq_lens == [3, 4] and extend.extend_prefix_lens == [0, 0]


def test_grammars_are_set_when_taken_as_the_old_method_did():
    batch = Batch(has_grammar=True)
    worker_batch_snapshot(batch)
    assert batch.sampling_info.grammars == ["g0", "g1"]
    batch = Batch(has_grammar=False)
    worker_batch_snapshot(batch)
    assert batch.sampling_info.grammars is None


def test_copies_of_a_snapshot_are_the_old_object_too():
    snapshot = worker_batch_snapshot(Batch(), seq_lens_cpu_cache=[5, 5])
    for again in (copy.copy(snapshot), copy.deepcopy(snapshot)):
        assert type(again) is WorkerBatchSnapshot and again.__class__ is Batch
        assert again == snapshot or again.reqs is not snapshot.reqs
        assert again.seq_lens_cpu == [5, 5] and again.extend_lens == [3, 4]


def test_a_deep_copy_copies_the_old_fields_and_shares_what_consumers_read_beyond_them():
    """The old object's deep copy copied its fields; a consumer's value the batch holds beyond them
    (`decoding_reqs` of requests that cannot be copied) is not the snapshot's to copy."""
    batch = Batch()
    batch.decoding_reqs = [threading.Lock()]
    snapshot = worker_batch_snapshot(batch)
    snapshot.sampling_info = snapshot.reqs = None  # what a follower strips before it serialises
    copied = copy.deepcopy(snapshot)
    assert copied == snapshot and copied.seq_lens is not snapshot.seq_lens
    assert copied.decoding_reqs is snapshot.decoding_reqs is batch.decoding_reqs


def test_a_snapshot_of_a_snapshot_is_that_snapshot():
    """`x.get_model_worker_batch() if isinstance(x, ScheduleBatch) else x`, migrated: a snapshot
    passes the type test as the batch, where the old object failed it and stayed itself."""
    snapshot = worker_batch_snapshot(Batch())
    snapshot.capture_hidden_mode = Mode.LAST
    assert worker_batch_snapshot(snapshot) is snapshot
    assert worker_batch_snapshot(snapshot, [9, 9]) is snapshot and snapshot.capture_hidden_mode is Mode.LAST


def test_a_snapshot_pickles_and_stays_a_snapshot():
    snapshot = worker_batch_snapshot(Batch(spec_info=SpecInfo(Mode.LAST)), seq_lens_cpu_cache=[5, 5])
    restored = pickle.loads(pickle.dumps(snapshot))
    assert type(restored) is WorkerBatchSnapshot and restored.__class__ is Batch
    assert restored.seq_lens_cpu == [5, 5] and restored.capture_hidden_mode is Mode.LAST
    assert init_new(restored)[0] is Mode.LAST and restored.capture_hidden_mode is Mode.LAST


def test_without_the_enum_the_error_says_what_to_import(monkeypatch):
    monkeypatch.delitem(sys.modules, "sglang.srt.model_executor.forward_batch_info")
    with pytest.raises(LookupError, match="forward_batch_info"):
        worker_batch_snapshot(Batch())


def test_capture_mode_is_the_snapshot_field_or_the_old_derivation_of_the_live_batch():
    batch = Batch(spec_info=SpecInfo(Mode.LAST))
    snapshot = worker_batch_snapshot(batch)
    assert worker_batch_capture_mode(snapshot) is Mode.LAST
    snapshot.capture_hidden_mode = Mode.FULL  # written on the old object: its `init_new` read that
    batch.spec_info = SpecInfo(Mode.NULL)  # the batch changed since: the snapshot does not see it
    assert worker_batch_capture_mode(snapshot) is Mode.FULL
    # The live batch: what the old method would derive now, in its order.
    assert worker_batch_capture_mode(batch) is Mode.NULL
    batch.spec_info = None
    assert worker_batch_capture_mode(batch) is Mode.NULL
    batch.spec_info, batch.return_hidden_states = SpecInfo(Mode.LAST), True
    assert worker_batch_capture_mode(batch) is Mode.FULL


def test_capture_mode_tells_a_snapshot_by_its_type_not_by_the_class_it_answers():
    class Pretends(Batch):
        @property  # type: ignore[misc]
        def __class__(self) -> type:
            return WorkerBatchSnapshot

    batch = Pretends(spec_info=SpecInfo(Mode.LAST))
    assert worker_batch_capture_mode(batch) is Mode.LAST  # derived, not read as a field


def test_capture_mode_given_by_the_caller_wins():
    batch = Batch(spec_info=SpecInfo(Mode.LAST))
    assert worker_batch_capture_mode(batch, Mode.FULL) is Mode.FULL
    assert worker_batch_capture_mode(worker_batch_snapshot(batch), Mode.NULL) is Mode.NULL
    assert worker_batch_capture_mode(batch, None) is Mode.LAST  # none given: the old object's
