"""Executable stand-ins of SGLang's batch layer, before and after upstream removed `ModelWorkerBatch`.

`install(version)` puts a fresh `sglang` package tree into `sys.modules`:

- `OLD` (SGLang <= 0.5.12): `ScheduleBatch.get_model_worker_batch(seq_lens_cpu_cache=None)` returns a
  `ModelWorkerBatch` snapshot with the old field names and the values it derived (decode-gated
  `extend_seq_lens`/`extend_prefix_lens`, `lora_ids` and `dllm_block_offsets` from the requests, the
  effective `seq_lens_cpu`, the capture mode); workers take `model_worker_batch`.
- `NEW` (SGLang 0.5.13): no `ModelWorkerBatch`; workers take `batch`; `ForwardBatch.init_new` consumes
  and resets the three one-shot overrides on the batch before anything else.

Both record what a forward observes (`ForwardBatch.init_new`) and what a case passes to
`record(label, value)` in one log, in a form that compares across versions: a batch-like object is
seen through the fields both versions share, under the new names.
"""

from __future__ import annotations

import copy
import enum
import sys
import types
from dataclasses import dataclass, field, make_dataclass
from typing import Any, Callable

from mwbmigrate.runtime import WorkerBatchSnapshot
from mwbmigrate.runtime.snapshot import OLD_FIELDS, OLD_METHOD_READS, REQUIRED

OLD = "0.5.12"
NEW = "0.5.13"

LOG: list[tuple[str, Any]] = []


class ForwardMode(enum.Enum):
    EXTEND = 1
    DECODE = 2
    IDLE = 3

    def is_decode(self) -> bool:
        return self is ForwardMode.DECODE

    def is_extend(self) -> bool:
        return self is ForwardMode.EXTEND

    def is_decode_or_idle(self) -> bool:
        return self in (ForwardMode.DECODE, ForwardMode.IDLE)


class CaptureHiddenMode(enum.Enum):
    NULL = 0
    LAST = 1
    FULL = 2


@dataclass
class Req:
    rid: int
    lora_id: str | None = None
    dllm_block_offset: int = 0
    grammar: Any = None


class SamplingInfo(dict):  # type: ignore[type-arg]
    """SGLang's sampling info: compared by its items; `grammars` is set per forward as SGLang sets it."""

    grammars: Any = None


def _set_grammars(batch: Any) -> None:
    """What 0.5.12's `get_model_worker_batch` and 0.5.13's `init_new` both do to the sampling info."""
    if batch.sampling_info:
        batch.sampling_info.grammars = [req.grammar for req in batch.reqs] if batch.has_grammar else None


def _default_reqs() -> list[Req]:
    return [Req(0, "a", 0), Req(1, None, 8)]


# Fields copied verbatim by `get_model_worker_batch` and read by every forward.
SHARED_FIELDS = (
    "forward_mode",
    "input_ids",
    "seq_lens",
    "req_pool_indices",
    "out_cache_loc",
    "return_logprob",
    "sampling_info",
    "spec_info",
)


def canonical(value: Any) -> Any:
    """A value as a reader of either version would compare it: batches through their shared fields."""
    if type(value) is WorkerBatchSnapshot:  # its `__class__` answers as the batch's: ask `type`
        return ("batch", _old_object_view(value))
    if isinstance(value, _BatchBase):
        return ("batch", value._view())
    if isinstance(value, ForwardBatch):
        return ("forward_batch", dict(value.observed))
    if isinstance(value, Req):
        return ("req", value.rid)
    if isinstance(value, enum.Enum):
        return (type(value).__name__, value.name)
    if isinstance(value, (list, tuple)):
        return (type(value).__name__, [canonical(item) for item in value])
    if isinstance(value, dict):
        return ("dict", sorted((repr(canonical(k)), canonical(v)) for k, v in value.items()))
    if isinstance(value, (set, frozenset)):
        return ("set", sorted(repr(canonical(item)) for item in value))
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if callable(value):
        return ("callable",)
    return ("object", type(value).__name__)


def record(label: str, value: Any = None) -> None:
    LOG.append((label, canonical(value)))


class _BatchBase:
    def _view(self) -> dict[str, Any]:
        raise NotImplementedError


# Fields of the old object that no ScheduleBatch has, so none takes them as keywords (a real one is a dataclass).
_OLD_OBJECT_ONLY = frozenset({"extend_seq_lens", "extend_prefix_lens", "lora_ids", "dllm_block_offsets"})


def _old_object_view(batch: Any) -> dict[str, Any]:
    """What a reader sees of the old object, under the new names (the stand-in's and the runtime's)."""
    view = {name: canonical(getattr(batch, name)) for name in SHARED_FIELDS}
    view["extend_lens"] = canonical(batch.extend_seq_lens)
    view["prefix_lens"] = canonical(batch.extend_prefix_lens)
    view["seq_lens_cpu"] = canonical(batch.seq_lens_cpu)
    return view


class ScheduleBatch(_BatchBase):
    """The scheduler's long-lived batch; one class serves both versions (`_version` decides the API)."""

    _version = NEW

    def __init__(self, **fields: Any) -> None:
        self.reqs: list[Req] = fields.pop("reqs", None) or _default_reqs()
        self.seq_lens = fields.pop("seq_lens", [3, 4])
        self.input_ids = fields.pop("input_ids", [11, 12, 13, 21, 22, 23, 24])
        self.forward_mode = fields.pop("forward_mode", ForwardMode.EXTEND)
        self.extend_lens = fields.pop("extend_lens", [3, 4])
        self.prefix_lens = fields.pop("prefix_lens", [0, 0])
        self.req_pool_indices = fields.pop("req_pool_indices", [0, 1])
        self.out_cache_loc = fields.pop("out_cache_loc", [100, 101])
        self.seq_lens_cpu = fields.pop("seq_lens_cpu", [3, 4])
        self.return_logprob = fields.pop("return_logprob", False)
        self.sampling_info = fields.pop("sampling_info", SamplingInfo(temperature=1.0))
        self.has_grammar = fields.pop("has_grammar", False)
        self.return_hidden_states = fields.pop("return_hidden_states", False)
        self.spec_info = fields.pop("spec_info", None)
        if self._version == NEW:
            # One-shot per-forward overrides; init_new consumes and resets.
            self.seq_lens_cpu_cache = None
            self.capture_hidden_mode = None
            self.return_hidden_states_before_norm = False
        for name, value in fields.items():
            if name in _OLD_OBJECT_ONLY:
                raise TypeError(f"ScheduleBatch got an unexpected keyword argument '{name}'")
            setattr(self, name, value)

    def _view(self) -> dict[str, Any]:
        view = {name: canonical(getattr(self, name, None)) for name in SHARED_FIELDS}
        view["extend_lens"] = canonical(self.extend_lens)
        view["prefix_lens"] = canonical(self.prefix_lens)
        view["seq_lens_cpu"] = canonical(self.seq_lens_cpu)
        return view

    def prepare_for_decode(self) -> None:
        self.forward_mode = ForwardMode.DECODE
        self.input_ids = [ids + 1 for ids in self.seq_lens]
        self.seq_lens = [length + 1 for length in self.seq_lens]
        self.seq_lens_cpu = list(self.seq_lens)

    def filter_batch(self, keep_indices: list[int] | None = None) -> None:
        keep = list(range(len(self.reqs))) if keep_indices is None else keep_indices
        self.reqs = [self.reqs[i] for i in keep]
        self.seq_lens = [self.seq_lens[i] for i in keep]
        self.seq_lens_cpu = [self.seq_lens_cpu[i] for i in keep]
        self.req_pool_indices = [self.req_pool_indices[i] for i in keep]
        self.extend_lens = [self.extend_lens[i] for i in keep]
        self.prefix_lens = [self.prefix_lens[i] for i in keep]

    def copy(self) -> "ScheduleBatch":
        clone = type(self).__new__(type(self))
        clone.__dict__.update(self.__dict__)
        return clone

    def batch_size(self) -> int:
        return len(self.reqs)

    def _derived_capture_mode(self) -> CaptureHiddenMode:
        if self.return_hidden_states:
            return CaptureHiddenMode.FULL
        if self.spec_info is not None:
            return getattr(self.spec_info, "capture_hidden_mode", CaptureHiddenMode.NULL)
        return CaptureHiddenMode.NULL


class OldScheduleBatch(ScheduleBatch):
    _version = OLD
    _snapshot_class: type["ModelWorkerBatch"]  # set per installed stand-in (see `modules`)

    def get_model_worker_batch(self, seq_lens_cpu_cache: Any = None) -> "ModelWorkerBatch":
        # 0.5.12.post1's method, read for read: the gated lengths, the grammars, the CPU lengths, then
        # each field in its constructor call's order (OLD_METHOD_READS, checked against the wheel),
        # every attribute read once (None where the stand-in batch has no such attribute).
        if self.forward_mode.is_decode_or_idle():
            gated: dict[str, Any] = dict.fromkeys(
                ("extend_seq_lens", "extend_prefix_lens", "extend_logprob_start_lens")
            )
        else:
            gated = {
                "extend_seq_lens": self.extend_lens,
                "extend_prefix_lens": self.prefix_lens,
                "extend_logprob_start_lens": getattr(self, "extend_logprob_start_lens", None),
            }
        _set_grammars(self)
        seq_lens_cpu = seq_lens_cpu_cache if seq_lens_cpu_cache is not None else self.seq_lens_cpu
        values: dict[str, Any] = {}
        for name, source in OLD_METHOD_READS:
            if source is not None:
                values[name] = getattr(self, source, -1 if name == "hicache_consumer_index" else None)
            elif name == "seq_lens_cpu":
                values[name] = seq_lens_cpu
            elif name in gated:
                values[name] = gated[name]
            elif name == "lora_ids":
                values[name] = [req.lora_id for req in self.reqs]
            elif name == "dllm_block_offsets":
                values[name] = [req.dllm_block_offset for req in self.reqs]
            else:
                values[name] = self._old_capture_mode()
        return self._snapshot_class(**values)

    def _old_capture_mode(self) -> CaptureHiddenMode:
        # 0.5.12.post1 tests the speculative input by truth (`if self.spec_info`), where 0.5.13's
        # `init_new` tests `is not None`.
        if self.return_hidden_states:
            return CaptureHiddenMode.FULL
        if self.spec_info:
            return getattr(self.spec_info, "capture_hidden_mode", CaptureHiddenMode.NULL)
        return CaptureHiddenMode.NULL


class _OldObject(_BatchBase):
    def _view(self) -> dict[str, Any]:
        return _old_object_view(self)


# The old object with 0.5.12.post1's 51 fields (the runtime's table, which tests/corpus checks
# against the wheel): what `hasattr`, `vars`, `dataclasses.fields` see of it.
ModelWorkerBatch = make_dataclass(
    "ModelWorkerBatch",
    [(name, Any) if default is REQUIRED else (name, Any, field(default=default)) for name, default in OLD_FIELDS],
    bases=(_OldObject,),
)


class ForwardBatch:
    def __init__(self, observed: dict[str, Any]) -> None:
        self.observed = observed
        for name, value in observed.items():
            setattr(self, name, value)

    @classmethod
    def init_new(cls, batch: Any, model_runner: Any = None) -> "ForwardBatch":
        if isinstance(batch, ModelWorkerBatch):
            capture = batch.capture_hidden_mode
            seq_lens_cpu = batch.seq_lens_cpu
            before_norm = batch.return_hidden_states_before_norm
            # 0.5.12 reads the lengths only for an extend forward (`if ret.forward_mode.is_extend()`).
            extend = batch.forward_mode.is_extend()
            extend_seq_lens = batch.extend_seq_lens if extend else None
            extend_prefix_lens = batch.extend_prefix_lens if extend else None
            lora_ids, offsets = batch.lora_ids, batch.dllm_block_offsets
        elif not isinstance(batch, ModelWorkerBatch) and not getattr(batch, "_version", NEW) == OLD:
            # 0.5.13 reads whatever it is handed by attribute, as SGLang does. Consume first: the overrides are reset before any other work.
            cache, batch.seq_lens_cpu_cache = batch.seq_lens_cpu_cache, None
            capture, batch.capture_hidden_mode = batch.capture_hidden_mode, None
            before_norm, batch.return_hidden_states_before_norm = batch.return_hidden_states_before_norm, False
            if capture is None:
                capture = batch._derived_capture_mode()
            seq_lens_cpu = cache if cache is not None else batch.seq_lens_cpu
            decode = batch.forward_mode.is_decode_or_idle()
            extend_seq_lens = None if decode else batch.extend_lens
            extend_prefix_lens = None if decode else batch.prefix_lens
            lora_ids = [req.lora_id for req in batch.reqs]
            offsets = [req.dllm_block_offset for req in batch.reqs]
            _set_grammars(batch)
        else:
            raise TypeError(f"init_new cannot build a forward batch from {type(batch).__name__}")
        observed = {name: copy.deepcopy(canonical(getattr(batch, name))) for name in SHARED_FIELDS}
        observed.update(
            seq_lens_cpu=canonical(seq_lens_cpu),
            extend_seq_lens=canonical(extend_seq_lens),
            extend_prefix_lens=canonical(extend_prefix_lens),
            lora_ids=canonical(lora_ids),
            dllm_block_offsets=canonical(offsets),
            capture_hidden_mode=canonical(capture),
            return_hidden_states_before_norm=before_norm,
        )
        LOG.append(("init_new", observed))
        return cls(observed)


class ModelRunner:
    def forward(self, forward_batch: ForwardBatch) -> tuple[str, int]:
        return ("logits", len(forward_batch.observed["seq_lens"][1]))


class _WorkerBase:
    _forward_batch_class: type[ForwardBatch] = ForwardBatch  # the installed stand-in's class

    def __init__(self) -> None:
        self.model_runner = ModelRunner()

    def _forward(self, batch: Any) -> tuple[str, int]:
        forward_batch = self._forward_batch_class.init_new(batch, self.model_runner)
        return self.model_runner.forward(forward_batch)


class OldTpModelWorker(_WorkerBase):
    def forward_batch_generation(
        self, model_worker_batch: ModelWorkerBatch, launch_done: Any = None, skip_sample: bool = False
    ) -> tuple[str, int]:
        LOG.append(("forward_batch_generation", skip_sample))
        return self._forward(model_worker_batch)

    def forward_batch_embedding(self, model_worker_batch: ModelWorkerBatch) -> tuple[str, int]:
        LOG.append(("forward_batch_embedding", None))
        return self._forward(model_worker_batch)


class NewTpModelWorker(_WorkerBase):
    def forward_batch_generation(
        self, batch: ScheduleBatch, launch_done: Any = None, skip_sample: bool = False
    ) -> tuple[str, int]:
        LOG.append(("forward_batch_generation", skip_sample))
        return self._forward(batch)

    def forward_batch_embedding(self, batch: ScheduleBatch) -> tuple[str, int]:
        LOG.append(("forward_batch_embedding", None))
        return self._forward(batch)


class OldEAGLEWorkerV2(_WorkerBase):
    def forward_batch_generation(self, model_worker_batch: ModelWorkerBatch, on_publish: Any = None) -> tuple[str, int]:
        LOG.append(("speculative forward", None))
        return self._forward(model_worker_batch)


class NewEAGLEWorkerV2(_WorkerBase):
    def forward_batch_generation(self, batch: ScheduleBatch, on_publish: Any = None) -> tuple[str, int]:
        LOG.append(("speculative forward", None))
        return self._forward(batch)


def _run_batch(version: str) -> Any:
    """The scheduler's `run_batch` of `version`: 0.5.12 hands the worker a snapshot; 0.5.13 hands it
    the batch inside `_forward_isolation`, which puts every field back after a speculative forward
    and only `sampling_info` after any other (managers/scheduler.py)."""

    def run_batch(worker: Any, batch: Any, *, speculative: bool = False) -> Any:
        if version == OLD:
            return worker.forward_batch_generation(batch.get_model_worker_batch())
        saved = dict(vars(batch)) if speculative else {"sampling_info": batch.sampling_info}
        try:
            return worker.forward_batch_generation(batch)
        finally:
            for name, value in saved.items():
                setattr(batch, name, value)

    return run_batch


def _module(name: str, **members: Any) -> types.ModuleType:
    module = types.ModuleType(name)
    module.__dict__.update(members)
    return module


def _fresh(base: type, **attributes: Any) -> type:
    """A subclass of its own, so that a case that patches a class (a monkeypatched worker method)
    patches only the stand-in it was given, never the next case's."""
    return type(base.__name__, (base,), attributes)


def modules(version: str) -> dict[str, types.ModuleType]:
    """The `sglang` package tree of one version, as fresh module objects and fresh classes."""
    snapshot_class = _fresh(ModelWorkerBatch)
    forward_batch_class = _fresh(ForwardBatch)
    if version == OLD:
        batch_class = _fresh(OldScheduleBatch, _snapshot_class=snapshot_class)
        worker_class = _fresh(OldTpModelWorker, _forward_batch_class=forward_batch_class)
        speculative_class = _fresh(OldEAGLEWorkerV2, _forward_batch_class=forward_batch_class)
    else:
        batch_class = _fresh(ScheduleBatch)
        worker_class = _fresh(NewTpModelWorker, _forward_batch_class=forward_batch_class)
        speculative_class = _fresh(NewEAGLEWorkerV2, _forward_batch_class=forward_batch_class)
    schedule_batch = {"ScheduleBatch": batch_class, "Req": Req}
    if version == OLD:
        schedule_batch["ModelWorkerBatch"] = snapshot_class

    def make_batch(**fields: Any) -> ScheduleBatch:
        return batch_class(**fields)

    tree = {
        "sglang": _module("sglang", __version__=version, __path__=[]),
        "sglang.srt": _module("sglang.srt", __path__=[]),
        "sglang.srt.managers": _module("sglang.srt.managers", __path__=[]),
        "sglang.srt.managers.schedule_batch": _module("sglang.srt.managers.schedule_batch", **schedule_batch),
        "sglang.srt.managers.tp_worker": _module("sglang.srt.managers.tp_worker", TpModelWorker=worker_class),
        "sglang.srt.model_executor": _module("sglang.srt.model_executor", __path__=[]),
        "sglang.srt.model_executor.forward_batch_info": _module(
            "sglang.srt.model_executor.forward_batch_info",
            ForwardBatch=forward_batch_class,
            ForwardMode=ForwardMode,
            CaptureHiddenMode=CaptureHiddenMode,
        ),
        "sglang.srt.model_executor.model_runner": _module(
            "sglang.srt.model_executor.model_runner", ModelRunner=ModelRunner
        ),
        "sglang.srt.speculative": _module("sglang.srt.speculative", __path__=[]),
        "sglang.srt.speculative.eagle_worker_v2": _module(
            "sglang.srt.speculative.eagle_worker_v2", EAGLEWorkerV2=speculative_class
        ),
        "sglang.standin": _module(
            "sglang.standin", make_batch=make_batch, record=record, Req=Req, run_batch=_run_batch(version)
        ),
    }
    return tree


class installed:
    """`with installed(version):` the stand-in replaces any `sglang` in `sys.modules`, then is removed.
    `tree`: the package tree a stand-in of another release builds (default: `modules`)."""

    def __init__(self, version: str, tree: Callable[[str], dict[str, types.ModuleType]] | None = None) -> None:
        self.version = version
        self._tree = tree or modules
        self._saved: dict[str, types.ModuleType] = {}

    def __enter__(self) -> None:
        self._saved = {name: mod for name, mod in sys.modules.items() if name == "sglang" or name.startswith("sglang.")}
        for name in self._saved:
            del sys.modules[name]
        sys.modules.update(self._tree(self.version))
        LOG.clear()

    def __exit__(self, *exc: object) -> None:
        for name in [n for n in sys.modules if n == "sglang" or n.startswith("sglang.")]:
            del sys.modules[name]
        sys.modules.update(self._saved)
