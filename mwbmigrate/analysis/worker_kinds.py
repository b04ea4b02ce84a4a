"""SGLang's worker classes by how SGLang calls them, and what each accepts in a target release: plain
data and the questions asked of it (analysis/worker_classes.py finds a module's stand-ins with LibCST;
analysis/project_classes.py across the tree with `ast`)."""

from __future__ import annotations

from dataclasses import dataclass

from mwbmigrate.analysis.target_versions import CallerParameter, at_least, worker_call_parameters

TP_WORKER = "tp_worker"
SPEC_WORKER = "spec_worker"
WORKER_METHOD = "forward_batch_generation"
SHAPED_WORKER_METHOD = "forward_batch_embedding"  # with WORKER_METHOD: a class shaped like TpModelWorker

# SGLang's worker classes that forks subclass, by how SGLang calls them.
SGLANG_WORKERS: dict[str, str] = {
    "TpModelWorker": TP_WORKER,
    "MlxTpModelWorker": TP_WORKER,
    "BaseSpecWorker": SPEC_WORKER,
    "EAGLEWorkerV2": SPEC_WORKER,
    "StandaloneWorkerV2": SPEC_WORKER,
    "MultiLayerEagleWorkerV2": SPEC_WORKER,
    "FrozenKVMTPWorkerV2": SPEC_WORKER,
    "NGRAMWorker": SPEC_WORKER,
    "DFlashWorkerV2": SPEC_WORKER,
    "DSparkWorkerV2": SPEC_WORKER,
    "UnoWorkerV2": SPEC_WORKER,
}
# Where an SGLang class's own `forward_batch_generation` takes a parameter later than its callers
# pass it, or never (None), read from the wheels 0.5.13 to 0.5.23: a `super()` call hands it on
# only from that release. `BaseSpecWorker` declares no such method, so it accepts nothing.
ACCEPTED_LATE: dict[str, dict[str, str | None]] = {
    "MlxTpModelWorker": {"return_kv_loc_plan": None},
    "MultiLayerEagleWorkerV2": {"pp_proxy_tensors": "0.5.21"},
    "FrozenKVMTPWorkerV2": {"pp_proxy_tensors": None},
    "NGRAMWorker": {"on_publish": "0.5.14", "grammar_barrier": None},
    "DSparkWorkerV2": {"pp_proxy_tensors": "0.5.21"},
    "UnoWorkerV2": {"pp_proxy_tensors": None},
}
_ACCEPTS_NOTHING = frozenset({"BaseSpecWorker"})
# The decorator that registers a plugin's speculative algorithm; its factory returns the worker class.
REGISTRY_CLASS = "SpeculativeAlgorithm"
REGISTER_DECORATOR = (REGISTRY_CLASS, "register")


@dataclass(frozen=True)
class WorkerClass:
    kind: str  # how SGLang calls it: TP_WORKER or SPEC_WORKER
    # What `super().forward_batch_generation` reaches: SGLang's class name, or None for a class of
    # the module that overrides the method itself (it then takes what its kind is passed).
    base: str | None
    base_kind: str  # the kind of that base (a registered worker may subclass TpModelWorker)


def accepts(worker: WorkerClass, name: str, target: str, *, through_super: bool) -> bool:
    """Whether the callee takes `name=` on `target`: the class's base (`super()`), else its target
    worker (a `TpModelWorker`)."""
    if not through_super:
        return any(p.name == name for p in worker_call_parameters(target, TP_WORKER))
    if worker.base is None:
        # A base of the module's own that overrides the method takes what its kind is passed; a
        # registered worker with no SGLang base has nothing known behind `super()`.
        return bool(worker.base_kind) and any(p.name == name for p in worker_call_parameters(target, worker.base_kind))
    if worker.base in _ACCEPTS_NOTHING:
        return False
    if not any(p.name == name for p in worker_call_parameters(target, SGLANG_WORKERS[worker.base])):
        return False
    late = ACCEPTED_LATE.get(worker.base, {})
    if name not in late:
        return True
    since = late[name]
    return since is not None and at_least(target, since)


def caller_parameters(worker: WorkerClass, target: str) -> tuple[CallerParameter, ...]:
    return worker_call_parameters(target, worker.kind)
