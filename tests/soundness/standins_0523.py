"""Executable stand-ins of how SGLang 0.5.12 and 0.5.23 call a fork's workers.

`installed(version)` puts an `sglang` tree into `sys.modules` (the batches, `ForwardBatch` and the
log are `standins`'), with what a migrated fork meets on 0.5.23 (`docs/target-versions.md`):

- `sglang.standin.schedule(worker, batch, overlap=True, grammar=False)` drives one step as the
  scheduler does. On 0.5.12 every worker gets `batch.get_model_worker_batch()` alone, and the
  scheduler publishes the step's results itself. On 0.5.23 a speculative worker gets
  `on_publish=` (and `grammar_barrier=` when the algorithm supports grammar overlap) on the
  overlap path and `pp_proxy_tensors=` on the other, and the results are published only when the
  worker calls `on_publish`; a `TpModelWorker` gets the batch (overlap) or `pp_proxy_tensors=`.
- `EAGLEWorkerV2.forward_batch_generation`: 0.5.12 `(self, model_worker_batch)`, setting the
  capture mode on the snapshot; 0.5.23 `(self, batch, on_publish=None, grammar_barrier=None,
  pp_proxy_tensors=None)`, calling `target_worker.forward_batch_generation(batch,
  pp_proxy_tensors=..., capture_hidden_mode=..., return_kv_loc_plan=False)` and `on_publish`.
- `TpModelWorker.forward_batch_generation`: 0.5.12 `(model_worker_batch, forward_batch=None,
  pp_proxy_tensors=None, is_verify=False, skip_attn_backend_init=False)`; 0.5.23 `(batch,
  forward_batch=None, pp_proxy_tensors=None, is_verify=False, skip_attn_backend_init=None, *,
  capture_hidden_mode=None, return_kv_loc_plan=False)`.
- `ForwardBatch.init_new(batch, model_runner, *, capture_hidden_mode=None,
  return_hidden_states_before_norm)` on 0.5.23 (the keyword is required; without a capture mode, a
  draft runner, `is_draft_worker`, ignores the batch's request for hidden states and captures
  only what its speculative input asks, as from 0.5.17); the 0.5.23 batch has no
  `is_spec_v2`, `all_extend_in_batch`, `can_run_dp_cuda_graph`, `can_run_dp_breakable_cuda_graph`
  (it has `can_run_decode_cuda_graph`), and `filter_batch(reqs_to_exclude=None, keep_indices=None)`.
- `SpeculativeAlgorithm.register(name, *, supports_overlap=False)` records a plugin's factory;
  `sglang.standin.create_worker(name, target_worker)` builds the worker it returns.
"""

from __future__ import annotations

import copy
import types
from typing import Any, Callable

from tests.soundness import standins
from tests.soundness.standins import (
    LOG,
    SHARED_FIELDS,
    CaptureHiddenMode,
    ForwardMode,
    ModelRunner,
    ModelWorkerBatch,
    OldScheduleBatch,
    Req,
    ScheduleBatch,
    canonical,
    record,
)

OLD = "0.5.12"
NEW = "0.5.23"


class _Algorithm:
    def __init__(self, name: str, grammar: bool = False) -> None:
        self.name = name
        self.grammar = grammar

    def is_none(self) -> bool:
        return self.name == "NONE"

    def supports_grammar_overlap(self) -> bool:
        return self.grammar


def _observe(batch: Any, capture: Any, before_norm: bool) -> dict[str, Any]:
    decode = batch.forward_mode.is_decode_or_idle()
    if isinstance(batch, ModelWorkerBatch):
        extend, prefix = batch.extend_seq_lens, batch.extend_prefix_lens
    else:
        extend, prefix = (None, None) if decode else (batch.extend_lens, batch.prefix_lens)
    observed = {name: copy.deepcopy(canonical(getattr(batch, name))) for name in SHARED_FIELDS}
    observed.update(
        seq_lens_cpu=canonical(batch.seq_lens_cpu),
        extend_seq_lens=canonical(extend),
        extend_prefix_lens=canonical(prefix),
        capture_hidden_mode=canonical(capture),
        return_hidden_states_before_norm=before_norm,
    )
    return observed


class OldForwardBatch(standins.ForwardBatch):
    @classmethod
    def init_new(cls, batch: Any, model_runner: Any = None) -> "OldForwardBatch":
        if not isinstance(batch, ModelWorkerBatch):
            raise TypeError(f"init_new cannot build a forward batch from {type(batch).__name__}")
        observed = _observe(batch, batch.capture_hidden_mode, batch.return_hidden_states_before_norm)
        LOG.append(("init_new", observed))
        return cls(observed)


class NewForwardBatch(standins.ForwardBatch):
    @classmethod
    def init_new(  # type: ignore[override]
        cls,
        batch: Any,
        model_runner: Any,
        *,
        capture_hidden_mode: Any = None,
        return_hidden_states_before_norm: bool,
    ) -> "NewForwardBatch":
        if not isinstance(batch, ScheduleBatch):
            raise TypeError(f"init_new cannot build a forward batch from {type(batch).__name__}")
        if capture_hidden_mode is not None:
            capture = capture_hidden_mode
        else:
            # What the release reads to derive it (0.5.17 on): the batch's request for hidden
            # states, which a draft runner ignores, combined by `max` with the speculative input's
            # mode (`get_required_capture_hidden_mode`). Public attributes, which a kept snapshot
            # answers too.
            requested = (
                CaptureHiddenMode.NULL
                if getattr(model_runner, "is_draft_worker", False)
                else CaptureHiddenMode.FULL
                if batch.return_hidden_states
                else CaptureHiddenMode.NULL
            )
            spec_mode = getattr(batch.spec_info, "capture_hidden_mode", None) or CaptureHiddenMode.NULL
            capture = max(requested, spec_mode, key=lambda mode: mode.value)
        observed = _observe(batch, capture, return_hidden_states_before_norm)
        LOG.append(("init_new", observed))
        return cls(observed)


class OldBatch(OldScheduleBatch):
    """0.5.12's batch: the fields 0.5.23 removed are still there."""

    def __init__(self, **fields: Any) -> None:
        self.spec_algorithm = fields.pop("spec_algorithm", _Algorithm("NONE"))
        self.enable_overlap = fields.pop("enable_overlap", True)
        self.all_extend_in_batch = fields.pop("all_extend_in_batch", False)
        self.can_run_dp_cuda_graph = fields.pop("can_run_dp_cuda_graph", True)
        super().__init__(**fields)

    @property
    def is_spec_v2(self) -> bool:
        return self.enable_overlap and not self.spec_algorithm.is_none()

    def filter_batch(  # type: ignore[override]
        self,
        chunked_req_to_exclude: Any = None,
        keep_indices: list[int] | None = None,
        v1_spec_info_filtered: bool = False,
    ) -> None:
        _filter(self, chunked_req_to_exclude, keep_indices)


class NewBatch(ScheduleBatch):
    """0.5.23's batch: no one-shot override fields, no `is_spec_v2` and friends."""

    def __init__(self, **fields: Any) -> None:
        self.spec_algorithm = fields.pop("spec_algorithm", _Algorithm("NONE"))
        self.enable_overlap = fields.pop("enable_overlap", True)
        fields.pop("all_extend_in_batch", None)
        self.can_run_decode_cuda_graph = fields.pop("can_run_dp_cuda_graph", True)
        super().__init__(**fields)
        for name in ("seq_lens_cpu_cache", "capture_hidden_mode", "return_hidden_states_before_norm"):
            self.__dict__.pop(name, None)

    def filter_batch(  # type: ignore[override]
        self, reqs_to_exclude: Any = None, keep_indices: list[int] | None = None
    ) -> None:
        _filter(self, reqs_to_exclude, keep_indices)


def _filter(batch: ScheduleBatch, exclude: Any, keep_indices: list[int] | None) -> None:
    if keep_indices is None:
        excluded = [exclude] if isinstance(exclude, Req) else (exclude or [])
        keep_indices = [i for i, req in enumerate(batch.reqs) if req not in excluded]
    LOG.append(("filter_batch", canonical(keep_indices)))
    ScheduleBatch.filter_batch(batch, keep_indices)


class _Worker:
    _forward_batch_class: type[standins.ForwardBatch]

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        self.model_runner = ModelRunner()
        self.target_worker = kwargs.get("target_worker")


class OldTpModelWorker(_Worker):
    def forward_batch_generation(
        self,
        model_worker_batch: Any,
        forward_batch: Any = None,
        pp_proxy_tensors: Any = None,
        is_verify: bool = False,
        skip_attn_backend_init: bool = False,
    ) -> tuple[str, int]:
        LOG.append(("tp_forward", (canonical(pp_proxy_tensors), is_verify)))
        if forward_batch is None:
            forward_batch = self._forward_batch_class.init_new(model_worker_batch, self.model_runner)
        return self.model_runner.forward(forward_batch)


class NewTpModelWorker(_Worker):
    def forward_batch_generation(
        self,
        batch: Any,
        forward_batch: Any = None,
        pp_proxy_tensors: Any = None,
        is_verify: bool = False,
        skip_attn_backend_init: Any = None,
        *,
        capture_hidden_mode: Any = None,
        return_kv_loc_plan: bool = False,
    ) -> tuple[str, int]:
        LOG.append(("tp_forward", (canonical(pp_proxy_tensors), is_verify)))
        if forward_batch is None:
            forward_batch = self._forward_batch_class.init_new(  # type: ignore[call-arg]
                batch,
                self.model_runner,
                capture_hidden_mode=capture_hidden_mode,
                return_hidden_states_before_norm=False,
            )
        return self.model_runner.forward(forward_batch)


class OldEAGLEWorkerV2(_Worker):
    def forward_batch_generation(self, model_worker_batch: Any) -> tuple[str, int]:
        LOG.append(("spec_forward", None))
        model_worker_batch.capture_hidden_mode = CaptureHiddenMode.FULL
        result = self.target_worker.forward_batch_generation(model_worker_batch)
        self.verify(model_worker_batch)
        return result

    def verify(self, batch: Any) -> None:
        LOG.append(("verify", None))


class NewEAGLEWorkerV2(_Worker):
    def forward_batch_generation(
        self, batch: Any, on_publish: Any = None, grammar_barrier: Any = None, pp_proxy_tensors: Any = None
    ) -> tuple[str, int]:
        LOG.append(("spec_forward", None))
        if grammar_barrier is not None:
            grammar_barrier()
        result = self.target_worker.forward_batch_generation(
            batch,
            pp_proxy_tensors=pp_proxy_tensors,
            capture_hidden_mode=CaptureHiddenMode.FULL,
            return_kv_loc_plan=False,
        )
        # 0.5.23 resolves the grammar state inside verify (the barrier above stands for the draft's).
        self.verify(batch, grammar_barrier=None)
        if on_publish is not None:
            on_publish(result)
        return result

    def verify(self, batch: Any, pp_proxy_tensors: Any = None, grammar_barrier: Any = None) -> None:
        LOG.append(("verify", None))


def _publish(result: Any) -> None:
    LOG.append(("published", canonical(result)))


_GRAMMAR = [0]  # how often the step advanced the grammar state; where it happens is each release's own


def _grammar() -> None:
    _GRAMMAR[0] += 1


def _is_spec(worker: Any) -> bool:
    return not isinstance(worker, _TP_CLASSES)


_TP_CLASSES: tuple[type, ...] = (OldTpModelWorker, NewTpModelWorker)


def schedule(version: str, worker: Any, batch: Any, overlap: bool = True, grammar: bool = False) -> Any:
    """One scheduler step, calling the worker as `version`'s scheduler does."""
    _GRAMMAR[0] = 0
    result = _step(version, worker, batch, overlap, grammar)
    if grammar:
        LOG.append(("grammar_advanced", _GRAMMAR[0]))
    return result


def _step(version: str, worker: Any, batch: Any, overlap: bool, grammar: bool) -> Any:
    spec = _is_spec(worker)
    if version == OLD:
        # 0.5.12 resolves the grammar state before the forward, and publishes after it.
        if grammar and spec:
            _grammar()
        result = worker.forward_batch_generation(batch.get_model_worker_batch())
        _publish(result)
        return result
    if not spec:
        result = (
            worker.forward_batch_generation(batch)
            if overlap
            else worker.forward_batch_generation(batch, pp_proxy_tensors=None)
        )
        _publish(result)
        return result
    if not overlap:
        if grammar:
            _grammar()
        result = worker.forward_batch_generation(batch, pp_proxy_tensors=None)
        _publish(result)  # the non-overlap path has no future map to publish through
        return result
    kwargs: dict[str, Callable[..., None]] = {"on_publish": _publish}
    if grammar:
        kwargs["grammar_barrier"] = _grammar
    return worker.forward_batch_generation(batch, **kwargs)


class _Registry:
    def __init__(self) -> None:
        self.factories: dict[str, Callable[[Any], type]] = {}


def modules(version: str) -> dict[str, types.ModuleType]:
    old = version == OLD
    forward_batch = _fresh(OldForwardBatch if old else NewForwardBatch)
    snapshot = _fresh(ModelWorkerBatch)
    batch_class = _fresh(OldBatch if old else NewBatch, **({"_snapshot_class": snapshot} if old else {}))
    tp = _fresh(OldTpModelWorker if old else NewTpModelWorker, _forward_batch_class=forward_batch)
    eagle = _fresh(OldEAGLEWorkerV2 if old else NewEAGLEWorkerV2, _forward_batch_class=forward_batch)
    registry = _Registry()

    class SpeculativeAlgorithm:
        NONE = _Algorithm("NONE")
        EAGLE = _Algorithm("EAGLE")

        @classmethod
        def register(cls, name: str, *, supports_overlap: bool = False, **_: Any) -> Callable[[Any], Any]:
            def decorate(factory: Any) -> Any:
                registry.factories[name] = factory
                return factory

            return decorate

    def make_batch(**fields: Any) -> Any:
        algorithm = fields.pop("algorithm", None)
        if algorithm is not None:
            fields["spec_algorithm"] = _Algorithm(algorithm, fields.pop("grammar", False))
        return batch_class(**fields)

    def create_worker(name: str, target_worker: Any) -> Any:
        return registry.factories[name](None)(target_worker=target_worker)

    def run(worker: Any, batch: Any, overlap: bool = True, grammar: bool = False) -> Any:
        return schedule(version, worker, batch, overlap, grammar)

    schedule_batch: dict[str, Any] = {"ScheduleBatch": batch_class, "Req": Req}
    if old:
        schedule_batch["ModelWorkerBatch"] = snapshot
    names = {
        "sglang": {"__version__": version, "__path__": []},
        "sglang.srt": {"__path__": []},
        "sglang.srt.managers": {"__path__": []},
        "sglang.srt.managers.schedule_batch": schedule_batch,
        "sglang.srt.managers.tp_worker": {"TpModelWorker": tp},
        "sglang.srt.model_executor": {"__path__": []},
        "sglang.srt.model_executor.forward_batch_info": {
            "ForwardBatch": forward_batch,
            "ForwardMode": ForwardMode,
            "CaptureHiddenMode": CaptureHiddenMode,
        },
        "sglang.srt.model_executor.model_runner": {"ModelRunner": ModelRunner},
        "sglang.srt.speculative": {"__path__": []},
        "sglang.srt.speculative.eagle_worker_v2": {"EAGLEWorkerV2": eagle},
        # 0.5.14 renamed the draft workers' base, with no alias.
        "sglang.srt.speculative.base_spec_worker": {
            ("BaseDraftWorker" if old else "EagleDraftWorkerBase"): type("DraftBase", (), {})
        },
        "sglang.srt.speculative.spec_info": {"SpeculativeAlgorithm": SpeculativeAlgorithm},
        "sglang.standin": {
            "make_batch": make_batch,
            "record": record,
            "Req": Req,
            "schedule": run,
            "create_worker": create_worker,
        },
    }
    tree = {}
    for name, members in names.items():
        module = types.ModuleType(name)
        module.__dict__.update(members)
        tree[name] = module
    return tree


def _fresh(base: type, **attributes: Any) -> type:
    return type(base.__name__, (base,), attributes)


def installed(version: str) -> standins.installed:
    """`with installed(version):` this stand-in replaces any `sglang` in `sys.modules`, then is removed."""
    return standins.installed(version, modules)
