"""The per-forward snapshot `ScheduleBatch.get_model_worker_batch()` used to return, kept in code.

Before SGLang 0.5.13 a worker got a fresh `ModelWorkerBatch`: a plain dataclass whose fields the
scheduler's batch filled in when it was asked, with a few values derived at that moment. Code that
reads the live batch instead observes the batch's later changes. Where a rewrite cannot prove that
nothing changes the batch in between, it keeps the snapshot:

    mwb = batch.get_model_worker_batch(seq_lens_cpu_cache=cpu)   ->   mwb = worker_batch_snapshot(batch, seq_lens_cpu_cache=cpu)

The snapshot *is* the old object, not a copy of the batch: an instance of this module's
`WorkerBatchSnapshot` (named as the old class), a dataclass with 0.5.12.post1's fields, filled in by the reads 0.5.12.post1's
`get_model_worker_batch()` made, in its order (`OLD_METHOD_READS`). Taking it reads the batch's
attributes as the old method read them, and nothing else: no `copy.copy`, no `__reduce_ex__`, no
subclass of the batch's class, so no `__copy__`, `__del__`, `__init_subclass__` or `__setattr__` of
the fork's batch class runs. It answers as the old object answered: `hasattr` and `getattr` of its
fields, `AttributeError` on anything else user code reads, `dataclasses.fields` / `asdict`, `pickle`,
`copy`, `deepcopy`, `==` and `repr`. Only its class tells it apart (a type test, a class-name read,
and `dataclasses.replace`, which rebuilds `x.__class__`, the batch's class: reported where the
rewrite sees it).

What a release's consumers (`ForwardBatch.init_new`, the workers) read beyond the old fields
(`CONSUMER_READS`) the snapshot answers too, as of the snapshot: the lengths under their new names
(`extend_lens` is the snapshot's `extend_seq_lens`), `return_hidden_states` as the old method read
it, `seq_lens_cpu_cache` as None (the override already is the snapshot's `seq_lens_cpu`), and
anything else from the batch's own state when the snapshot was taken, read without running a
property or `__getattr__` (the old method never read those).

The one-shot override fields are the snapshot's own: a consuming forward reads an override field
and writes its reset value right away (`capture_hidden_mode = None`, `return_hidden_states_before_norm
= False`, `seq_lens_cpu_cache = None`), on whatever it is handed. On a snapshot that write, coming
straight after the read of the same field, keeps the value, as the old object kept its fields across
forwards; no frame is inspected and no caller's name is trusted. Any other write is a field write.
"""

from __future__ import annotations

import copy
import dataclasses
import sys
from typing import Any, ClassVar, Final, cast

__all__ = [
    "CONSUMER_READS",
    "OLD_CLASS_NAME",
    "OLD_FIELDS",
    "OLD_METHOD_READS",
    "REQUIRED",
    "WorkerBatchSnapshot",
    "worker_batch_capture_mode",
    "worker_batch_snapshot",
]

# Where SGLang defines `CaptureHiddenMode`; looked up in sys.modules only, never imported.
_ENUM_MODULE: Final = "sglang.srt.model_executor.forward_batch_info"
_MISSING: Final = object()
OLD_CLASS_NAME: Final = "ModelWorkerBatch"
REQUIRED: Final = object()  # an `OLD_FIELDS` entry without a default

# 0.5.12.post1's `ModelWorkerBatch` fields, in declaration order, with their defaults (`REQUIRED`:
# none, the old method always passed it). tests/corpus checks this against the wheel.
OLD_FIELDS: Final[tuple[tuple[str, Any], ...]] = (
    *((name, REQUIRED) for name in (
        "forward_mode", "input_ids", "req_pool_indices", "seq_lens", "out_cache_loc", "seq_lens_cpu",
        "seq_lens_sum", "return_logprob", "top_logprobs_nums", "token_ids_logprobs", "global_num_tokens",
        "global_num_tokens_for_logprob", "is_extend_in_batch", "all_extend_in_batch", "can_run_dp_cuda_graph",
        "tbo_split_seq_index", "global_forward_mode", "extend_num_tokens", "extend_seq_lens", "extend_prefix_lens",
        "extend_logprob_start_lens", "extend_input_logprob_token_ids", "multimodal_inputs", "encoder_cached",
        "encoder_lens", "encoder_lens_cpu", "encoder_out_cache_loc", "lora_ids", "sampling_info",
    )),
    ("orig_seq_lens", None), ("input_embeds", None), ("replace_embeds", None), ("replace_positions", None),
    ("ne_token_table", None), ("token_type_ids", None), ("spec_algorithm", None), ("spec_info", None),
    ("capture_hidden_mode", None), ("hicache_consumer_index", -1), ("dimensions", None),
    ("return_pooled_hidden_states", False), ("is_prefill_only", False), ("multi_item_delimiter_indices", None),
    ("dllm_block_offsets", None), ("dllm_config", None), ("reqs", None), ("has_grammar", False),
    ("return_hidden_states_before_norm", False), ("mamba_track_indices", None), ("mamba_track_mask", None),
    ("mamba_track_seqlens", None),
)  # fmt: skip

# The fields 0.5.12.post1's method copied from the batch attribute of the same name, in the order its
# call to `ModelWorkerBatch(...)` read them; `None` stands where it computed a field instead.
OLD_METHOD_READS: Final[tuple[tuple[str, str | None], ...]] = (
    ("forward_mode", "forward_mode"), ("input_ids", "input_ids"), ("req_pool_indices", "req_pool_indices"),
    ("seq_lens", "seq_lens"), ("orig_seq_lens", "orig_seq_lens"), ("out_cache_loc", "out_cache_loc"),
    ("seq_lens_cpu", None), ("seq_lens_sum", "seq_lens_sum"), ("return_logprob", "return_logprob"),
    ("top_logprobs_nums", "top_logprobs_nums"), ("token_ids_logprobs", "token_ids_logprobs"),
    ("global_num_tokens", "global_num_tokens"), ("global_num_tokens_for_logprob", "global_num_tokens_for_logprob"),
    ("is_extend_in_batch", "is_extend_in_batch"), ("all_extend_in_batch", "all_extend_in_batch"),
    ("can_run_dp_cuda_graph", "can_run_dp_cuda_graph"), ("tbo_split_seq_index", "tbo_split_seq_index"),
    ("global_forward_mode", "global_forward_mode"), ("extend_num_tokens", "extend_num_tokens"),
    ("extend_seq_lens", None), ("extend_prefix_lens", None), ("extend_logprob_start_lens", None),
    ("multimodal_inputs", "multimodal_inputs"), ("encoder_cached", "encoder_cached"),
    ("encoder_lens", "encoder_lens"), ("encoder_lens_cpu", "encoder_lens_cpu"),
    ("encoder_out_cache_loc", "encoder_out_cache_loc"), ("lora_ids", None), ("sampling_info", "sampling_info"),
    ("input_embeds", "input_embeds"), ("replace_embeds", "replace_embeds"), ("replace_positions", "replace_positions"),
    ("ne_token_table", "ne_token_table"), ("token_type_ids", "token_type_ids"), ("spec_algorithm", "spec_algorithm"),
    ("spec_info", "spec_info"), ("hicache_consumer_index", "hicache_consumer_index"), ("capture_hidden_mode", None),
    ("extend_input_logprob_token_ids", "extend_input_logprob_token_ids"), ("is_prefill_only", "is_prefill_only"),
    ("multi_item_delimiter_indices", "multi_item_delimiter_indices"), ("dimensions", "dimensions"),
    ("return_pooled_hidden_states", "return_pooled_hidden_states"), ("dllm_block_offsets", None),
    ("dllm_config", "dllm_config"), ("reqs", "reqs"), ("has_grammar", "has_grammar"),
    ("mamba_track_indices", "mamba_track_indices"), ("mamba_track_mask", "mamba_track_mask"),
    ("mamba_track_seqlens", "mamba_track_seqlens"),
)  # fmt: skip

# What `ForwardBatch.init_new` and `TpModelWorker` of 0.5.13 to 0.5.23 read on the batch beyond the
# old fields (tests/corpus checks it against the wheels). A name here that is an old field under its
# old name is answered by that field; every other one from the batch's state when the snapshot was taken.
CONSUMER_ALIASES: Final = {"extend_lens": "extend_seq_lens", "prefix_lens": "extend_prefix_lens"}
CONSUMER_READS: Final = frozenset(
    {
        *CONSUMER_ALIASES,
        "seq_lens_cpu_cache", "return_hidden_states", "return_hidden_states_mode", "decoding_reqs",
        "can_run_dp_breakable_cuda_graph", "can_run_decode_cuda_graph", "can_run_dp_draft_cuda_graph",
        "can_run_dp_prefill_cuda_graph", "dp_prefill_cuda_graph_max_prefix_len", "engram_history",
        "engram_staged_rows", "mamba_clear_indices", "mamba_cow_dst_indices", "mamba_cow_src_indices",
        "mamba_prefill_track_mask_cpu", "mamba_track_seqlens_cpu", "out_cache_loc_dsv4",
        "split_forward_batch", "split_forward_count", "split_index",
    }
)  # fmt: skip
# The reset a consuming forward writes on what it is handed; on a snapshot it keeps the value.
_RESETS: Final = {"capture_hidden_mode": None, "return_hidden_states_before_norm": False, "seq_lens_cpu_cache": None}
_CONSUMER_DEFAULTS: Final = {"seq_lens_cpu_cache": None, "return_hidden_states": False}
# What a field holds where the batch lacks the attribute the old method read (a batch of another release).
_ABSENT: Final = {name: None if default is REQUIRED else default for name, default in OLD_FIELDS}


class WorkerBatchSnapshot:
    """The old object. Its dataclass fields are `OLD_FIELDS` (set up below); `_consumer_values` holds,
    outside the fields, what the target's consumers read beyond them. Its name is the old class's."""

    __slots__ = ("__dict__", "__weakref__", "_consumer_values", "_batch_class", "_last_read")
    _fork_fields: tuple[str, ...] = ()  # a fork's own fields, beyond 0.5.12.post1's (`_snapshot_class`)
    __dataclass_fields__: ClassVar[dict[str, Any]]  # set by `_install_fields`

    @property  # type: ignore[misc]
    def __class__(self) -> type:
        # What a type test sees, as it saw the batch the migrated code reads elsewhere: a migrated
        # `isinstance(x, ScheduleBatch)` (was `ModelWorkerBatch`), a class pattern, `singledispatch`.
        # `type(x)` is this class, and no subclass of the batch's class is ever made.
        try:
            return object.__getattribute__(self, "_batch_class")  # type: ignore[no-any-return]
        except AttributeError:
            return type(self)

    def __repr__(self) -> str:
        fields = ", ".join(f"{name}={getattr(self, name)!r}" for name in type(self).__dataclass_fields__)
        return f"{OLD_CLASS_NAME}({fields})"

    def __eq__(self, other: object) -> bool:
        # The old dataclass compared its fields with another of its own class only; the generated
        # test reads `__class__`, which here answers the batch's class.
        if type(other) is not type(self):
            # Not `NotImplemented` for the batch: its dataclass `__eq__` would then run, read this
            # snapshot's `__class__` as its own and compare fields the old object never had.
            batch_class = object.__getattribute__(self, "__class__")
            return False if isinstance(other, batch_class) and batch_class is not type(self) else NotImplemented
        names = type(self).__dataclass_fields__
        mine = tuple(object.__getattribute__(self, name) for name in names)
        return mine == tuple(object.__getattribute__(other, name) for name in names)

    __hash__ = None  # type: ignore[assignment]  # as a dataclass with `eq` had: unhashable

    def __reduce_ex__(self, protocol: object) -> tuple[Any, ...]:
        # `__class__` is the batch's class: pickle and copy must rebuild this one.
        state = {name: getattr(self, name) for name in type(self).__dataclass_fields__}
        extra = {k: v for k, v in self.__dict__.items() if k not in state}
        slots = {}
        for slot in ("_consumer_values", "_batch_class"):
            try:
                slots[slot] = object.__getattribute__(self, slot)
            except AttributeError:
                pass
        return (_rebuild, (type(self)._fork_fields, state, extra, slots))

    def __deepcopy__(self, memo: dict[int, Any]) -> WorkerBatchSnapshot:
        # The old object's deep copy copied its fields alone. What the snapshot answers a release's
        # consumers beyond them (`decoding_reqs`, ...) is the batch's state, shared with the copy,
        # never copied: the old object carried none of it to copy (or fail to copy).
        _rebuilder, (fork_fields, state, extra, slots) = self.__reduce_ex__(4)
        consumer_values = slots.get("_consumer_values")
        if consumer_values is not None:
            memo[id(consumer_values)] = consumer_values
        copied = _rebuild(fork_fields, copy.deepcopy(state, memo), copy.deepcopy(extra, memo), slots)
        memo[id(self)] = copied
        return copied

    def __getattribute__(self, name: str) -> Any:
        value = object.__getattribute__(self, name)
        if name in _RESETS:
            object.__setattr__(self, "_last_read", name)
        elif name[:1] != "_":
            object.__setattr__(self, "_last_read", None)
        return value

    def __setattr__(self, name: str, value: Any) -> None:
        # A forward consumes an override field by reading it and writing its reset value right away
        # (0.5.13's `init_new`, this runtime's `consume_forward_overrides`): on the old object that
        # write never happened, so the snapshot keeps its value. Any other write is a field write.
        try:
            just_read = object.__getattribute__(self, "_last_read")
        except AttributeError:
            just_read = None
        object.__setattr__(self, "_last_read", None)
        reset = _RESETS.get(name, _MISSING)
        if value is reset and (just_read == name or name not in type(self).__dataclass_fields__):
            return  # (`seq_lens_cpu_cache` is no field: the override already is `seq_lens_cpu`)
        object.__setattr__(self, name, value)

    def __getattr__(self, name: str) -> Any:
        # Reached only for what is not a field: a consumer's read, or an attribute the old object lacked.
        if name in CONSUMER_READS:
            alias = CONSUMER_ALIASES.get(name)
            if alias is not None:
                return getattr(self, alias)
            try:
                values = object.__getattribute__(self, "_consumer_values")
            except AttributeError:
                values = {}  # made by `dataclasses.replace` or a constructor call: the defaults
            return values.get(name, _CONSUMER_DEFAULTS.get(name))
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")


def _install_fields(cls: type) -> type:
    annotations: dict[str, Any] = {}
    for name, default in OLD_FIELDS:
        annotations[name] = "Any"
        if default is not REQUIRED:
            setattr(cls, name, default)
    cls.__annotations__ = annotations
    return dataclasses.dataclass(cls, repr=False)


_install_fields(WorkerBatchSnapshot)
# What `type(x).__name__`, `repr` and an AttributeError say, as they said of the old object.
WorkerBatchSnapshot.__name__ = WorkerBatchSnapshot.__qualname__ = OLD_CLASS_NAME
globals()[OLD_CLASS_NAME] = WorkerBatchSnapshot  # where pickle looks the class up by that name


def _rebuild(
    fork_fields: tuple[str, ...], state: dict[str, Any], extra: dict[str, Any], slots: dict[str, Any]
) -> WorkerBatchSnapshot:
    snapshot = _snapshot_class(fork_fields)(**state)
    snapshot.__dict__.update(extra)
    for name, value in slots.items():
        object.__setattr__(snapshot, name, value)
    return snapshot


def worker_batch_capture_mode(batch: Any, given: Any = None) -> Any:
    """The capture mode the old object carried to `init_new`, for a call that passes it as a keyword
    (`ForwardBatch.init_new(batch, runner, capture_hidden_mode=worker_batch_capture_mode(batch))`);
    `given`, where it is not None: a worker's own `capture_hidden_mode` argument, which its caller set.

    From SGLang 0.5.16 `init_new` takes the mode as an argument and derives it when none is given, at
    the forward and from 0.5.17 by another rule (NULL on a draft runner). The old `init_new` read the
    field of the object it was handed: a kept snapshot's own field (derived when it was taken, or
    written since), and for the live batch, which a rewrite hands on only where nothing changes it
    after the old method ran, what that method derived."""
    if given is not None:
        return given
    if issubclass(type(batch), WorkerBatchSnapshot):  # not `isinstance`: a snapshot's `__class__` is the batch's
        return object.__getattribute__(batch, "capture_hidden_mode")
    return _capture_hidden_mode(batch, getattr(batch, "return_hidden_states", False))


def _capture_hidden_mode(batch: Any, return_hidden_states: Any) -> Any:
    """The old method's derivation, in its order: `return_hidden_states`, then `spec_info` by truth,
    then its `capture_hidden_mode` with the default NULL."""
    modes = getattr(sys.modules.get(_ENUM_MODULE), "CaptureHiddenMode", None)
    if return_hidden_states:
        return modes.FULL if modes is not None else _member_of(batch.spec_info, "FULL")
    if batch.spec_info:
        found = getattr(batch.spec_info, "capture_hidden_mode", _MISSING)
        return found if found is not _MISSING else (modes.NULL if modes is not None else _member_of(None, "NULL"))
    return modes.NULL if modes is not None else _member_of(None, "NULL")


def _member_of(spec_info: Any, name: str) -> Any:
    related = getattr(spec_info, "capture_hidden_mode", None) if spec_info is not None else None
    member = getattr(type(related), name, None) if related is not None else None
    if member is None:
        raise LookupError(f"CaptureHiddenMode.{name} not found: import {_ENUM_MODULE} before taking a snapshot")
    return member


def _state_value(batch: Any, name: str) -> Any:
    """`batch.name` as the batch holds it, without running a property, a descriptor or `__getattr__`."""
    try:
        own = object.__getattribute__(batch, "__dict__")
    except AttributeError:
        own = {}
    if isinstance(own, dict) and name in own:
        return own[name]
    for klass in type(batch).__mro__:
        found = klass.__dict__.get(name, _MISSING)
        if found is not _MISSING:
            return None if hasattr(type(found), "__get__") else found
    return _CONSUMER_DEFAULTS.get(name)


_SNAPSHOT_CLASSES: dict[tuple[str, ...], type[WorkerBatchSnapshot]] = {(): WorkerBatchSnapshot}


def _snapshot_class(fork_fields: tuple[str, ...]) -> type[WorkerBatchSnapshot]:
    """The old class of a fork whose `ModelWorkerBatch` has `fork_fields` too (made once per tuple)."""
    found = _SNAPSHOT_CLASSES.get(fork_fields)
    if found is None:
        fields = [(name, Any, dataclasses.field(default=None)) for name in fork_fields]
        found = dataclasses.make_dataclass(
            OLD_CLASS_NAME,
            fields,
            bases=(WorkerBatchSnapshot,),
            repr=False,
            eq=False,  # the base's `__eq__`, which tests `type`, not `__class__`
            namespace={"_fork_fields": fork_fields},
        )
        found.__module__ = __name__
        _SNAPSHOT_CLASSES[fork_fields] = found
    return found


def worker_batch_snapshot(
    batch: Any, seq_lens_cpu_cache: Any = None, *, fork_fields: tuple[str, ...] = ()
) -> WorkerBatchSnapshot:
    """What `batch.get_model_worker_batch(seq_lens_cpu_cache)` returned: the old method, step by step.
    `fork_fields`: the fields a fork's own `ModelWorkerBatch` adds, which its method copied from the
    batch attribute of the same name (the rewrite passes them, read from the tree).

    Handed a snapshot, it returns that snapshot: code reaches here with one only through a type test
    that the snapshot answers as the batch (`x.get_model_worker_batch() if isinstance(x, ScheduleBatch)
    else x`), which the old object failed, keeping `x` itself."""
    if issubclass(type(batch), WorkerBatchSnapshot):  # not `isinstance`: its `__class__` is the batch's
        return cast(WorkerBatchSnapshot, batch)
    decode = batch.forward_mode.is_decode_or_idle()
    if decode:
        gated = {"extend_seq_lens": None, "extend_prefix_lens": None, "extend_logprob_start_lens": None}
    else:
        gated = {
            "extend_seq_lens": batch.extend_lens,
            "extend_prefix_lens": batch.prefix_lens,
            "extend_logprob_start_lens": getattr(batch, "extend_logprob_start_lens", None),
        }
    if batch.sampling_info:
        batch.sampling_info.grammars = [req.grammar for req in batch.reqs] if batch.has_grammar else None
    seq_lens_cpu = seq_lens_cpu_cache if seq_lens_cpu_cache is not None else batch.seq_lens_cpu
    values: dict[str, Any] = {}
    return_hidden_states: Any = False
    for field_name, source in OLD_METHOD_READS:
        if source is not None:
            values[field_name] = getattr(batch, source, _ABSENT[field_name])
        elif field_name == "seq_lens_cpu":
            values[field_name] = seq_lens_cpu
        elif field_name in gated:
            values[field_name] = gated[field_name]
        elif field_name == "lora_ids":
            values[field_name] = [req.lora_id for req in batch.reqs]
        elif field_name == "dllm_block_offsets":
            values[field_name] = [req.dllm_block_offset for req in batch.reqs]
        else:  # capture_hidden_mode
            return_hidden_states = getattr(batch, "return_hidden_states", False)
            values[field_name] = _capture_hidden_mode(batch, return_hidden_states)
    for name in fork_fields:
        values[name] = getattr(batch, name)
    snapshot = _snapshot_class(tuple(fork_fields))(**values)
    consumer_values = {name: _state_value(batch, name) for name in CONSUMER_READS - CONSUMER_ALIASES.keys()}
    consumer_values["seq_lens_cpu_cache"] = None
    consumer_values["return_hidden_states"] = return_hidden_states
    object.__setattr__(snapshot, "_consumer_values", consumer_values)
    object.__setattr__(snapshot, "_batch_class", type(batch))
    return snapshot
