"""The implementations the suite holds to one contract, behind one small interface.

``RuntimeImpl`` drives ``mwbmigrate.runtime`` on the reference batch of ``_fakes``. ``TreeImpl``
drives a target SGLang tree's own classes (imported with ``sglang_import``): its
``ScheduleBatch`` built directly as a dataclass, its ``ForwardBatch.init_new`` with a stub model
runner, its scheduler's isolation on an ``object.__new__`` scheduler, its ``spec_utils`` helpers.

Each implementation has a *profile*: per contract group, which behaviour it is held to, or None
when the group does not apply (the class lacks the fields, the tree has no such code):

* ``isolation`` / ``ring``: ``"runtime"`` (the mwbmigrate contract: full-instance snapshot,
  nested isolation refused, pin failure restores, overrides reset on exit) or ``"upstream"``
  (SGLang's ``Scheduler._forward_isolation`` / ``record_batch_in_overlap`` and their documented
  limitations);
* ``streams``: ``"runtime"`` (nested containers flattened, missing batch attributes tolerated) or
  ``"upstream"`` (top-level tensors only, a missing batch attribute raises);
* ``req_pool``: ``"fixed"`` (the request-pool fix is applied: the scenarios must pass) or
  ``"upstream"`` (no fix: the tests assert upstream's documented failure modes);
* ``oneshot``: ``"contract"`` when the batch declares the three one-shot fields.

A tree's profile comes from what its code uses: a ``schedule_batch`` module that imports the
runtime's req-pool helpers claims the fix; a scheduler module that imports
``overlap_forward_isolation`` is held to the runtime's isolation contract.
"""

from __future__ import annotations

import contextlib
import dataclasses
import inspect
from pathlib import Path
from types import SimpleNamespace
from typing import Any, Callable, ContextManager, Iterator, Optional, cast
from unittest import mock

import torch

from mwbmigrate import runtime
from mwbmigrate.verify.suite import _fakes as fakes
from mwbmigrate.verify.suite._fakes import SpecAlgo

GROUPS_WITH_PROFILE = ("oneshot", "isolation", "ring", "streams", "req_pool", "hisparse_builder")
ONE_SHOT_FIELDS = ("seq_lens_cpu_cache", "capture_hidden_mode", "return_hidden_states_before_norm")


def empty(dtype: torch.dtype = torch.int64) -> torch.Tensor:
    return torch.empty(0, dtype=dtype)


class Impl:
    """Interface shared by the implementations (see the module docstring)."""

    name: str
    description: str
    CaptureHiddenMode: Any
    ForwardMode: Any
    profile: dict[str, Optional[str]]
    notes: list[str]
    #: The snapshot gate the implementation uses when none is forced ("spec_v2" / "any_spec").
    native_gate: str = "spec_v2"
    #: Gates the test may force through ``isolation(gate=...)``.
    gates: tuple[str, ...] = ("spec_v2",)

    def supports(self, group: str, profile: Optional[str] = None) -> bool:
        """Whether the contract ``group`` applies (with behaviour ``profile``, when given)."""
        if group not in self.profile:
            return True
        actual = self.profile[group]
        return actual is not None and (profile is None or actual == profile)

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "description": self.description,
            "profile": dict(self.profile),
            "notes": list(self.notes),
        }

    # Batches ---------------------------------------------------------------------------
    batch_class: type

    def make_batch(self, spec: str = "none", cls: Optional[type] = None, **fields: Any) -> Any:
        raise NotImplementedError

    def subclass_with_extra_field(self) -> type:
        base = self.batch_class
        return dataclasses.make_dataclass(f"{base.__name__}WithExtra", [("extra_field", Any, None)], bases=(base,))

    def make_sampling_info(self, orchestrator: Any) -> Any:
        return fakes.FakeSamplingInfo(penalizer_orchestrator=orchestrator)

    # One-shot ------------------------------------------------------------------------------
    def init_new(self, batch: Any) -> Any:
        raise NotImplementedError

    # Isolation and ring --------------------------------------------------------------------
    def make_ring(self) -> Any:
        raise NotImplementedError

    def isolation(
        self, batch: Any, ring: Any = None, *, gate: Optional[str] = None, overlap: Optional[bool] = None
    ) -> ContextManager[Any]:
        """Isolate ``batch``; pin it in ``ring`` when ``overlap`` (default: a ring is given)."""
        raise NotImplementedError

    def failing_pin(self) -> Any:
        """A ring whose pin raises; the isolation must be entered with it."""
        raise NotImplementedError

    def record(self, ring: Any, batch: Any) -> None:
        raise NotImplementedError

    def keep_alive(self, ring: Any, *refs: Any) -> None:
        raise NotImplementedError

    def ring_index(self, ring: Any) -> int:
        raise NotImplementedError

    def ring_slots(self, ring: Any) -> tuple[Any, ...]:
        raise NotImplementedError

    # Streams ---------------------------------------------------------------------------------
    record_stream_each: Callable[[Any, Any], Any]
    record_stream_for_v2_verify: Callable[[Any, Any, Any], Any]
    verify_input_attrs: tuple[str, ...] = ()

    # Request pool ----------------------------------------------------------------------------
    def make_pool_batch(
        self,
        indices: list[int],
        seq_lens: list[int],
        *,
        mirror: bool,
        finished: bool = False,
        coordinator: Any = None,
    ) -> Any:
        raise NotImplementedError

    def prepare_for_decode(self, batch: Any) -> None:
        raise NotImplementedError

    def build_decode_batch(self, reqs: list[Any]) -> Any:
        """What the hisparse staging-to-decode builder makes from ``reqs``."""
        raise NotImplementedError

    def req_pool_helpers(self) -> tuple[Callable[..., Any], Callable[..., Any]]:
        """``(ensure_req_pool_indices_cpu, clear_req_pool_metadata)`` as the implementation uses them."""
        return runtime.ensure_req_pool_indices_cpu, runtime.clear_req_pool_metadata

    def filter_batch(self, batch: Any, keep_indices: Optional[list[int]] = None) -> None:
        batch.filter_batch(keep_indices=keep_indices)

    def merge_batch(self, batch: Any, other: Any) -> None:
        batch.merge_batch(other)


# ------------------------------------------------------------------------------- runtime


class _RaisingRing:
    def record(self, batch: Any) -> None:
        raise RuntimeError("pin failed")


class RuntimeImpl(Impl):
    name = "runtime"
    description = "mwbmigrate.runtime on the reference ScheduleBatch"
    CaptureHiddenMode = fakes.CaptureHiddenMode
    ForwardMode = fakes.ForwardMode
    batch_class = fakes.RefScheduleBatch
    gates = ("spec_v2", "any_spec")
    verify_input_attrs = runtime.V2_VERIFY_INPUT_ATTRS

    def __init__(self) -> None:
        self.profile = {
            "oneshot": "contract",
            "isolation": "runtime",
            "ring": "runtime",
            "streams": "runtime",
            "req_pool": "fixed",
            "hisparse_builder": "fixed",
        }
        self.notes = []
        self.record_stream_each = runtime.record_stream_each
        self.record_stream_for_v2_verify = runtime.record_stream_for_v2_verify

    def make_batch(self, spec: str = "none", cls: Optional[type] = None, **fields: Any) -> Any:
        values: dict[str, Any] = dict(
            forward_mode=fakes.ForwardMode.IDLE,
            spec_algorithm=SpecAlgo(spec),
            seq_lens=empty(),
            seq_lens_cpu=empty(),
            orig_seq_lens=empty(torch.int32),
            req_pool_indices=empty(),
            req_pool_indices_cpu=empty(),
            seq_lens_sum=0,
        )
        values.update(fields)
        return (cls or self.batch_class)(**values)

    def init_new(self, batch: Any) -> Any:
        return runtime.apply_forward_overrides(batch, modes=fakes.CaptureHiddenMode)

    def make_ring(self) -> Any:
        return runtime.BatchRecordRing(2)

    def isolation(
        self, batch: Any, ring: Any = None, *, gate: Optional[str] = None, overlap: Optional[bool] = None
    ) -> ContextManager[Any]:
        # The suite names the gates by the runtime's own policy names.
        policy = cast(runtime.SnapshotPolicy, gate)
        return runtime.overlap_forward_isolation(batch, None if overlap is False else ring, snapshot=policy)

    def failing_pin(self) -> Any:
        return _RaisingRing()

    def record(self, ring: Any, batch: Any) -> None:
        ring.record(batch)

    def keep_alive(self, ring: Any, *refs: Any) -> None:
        ring.keep_alive(*refs)

    def ring_index(self, ring: Any) -> int:
        return int(ring.index)

    def ring_slots(self, ring: Any) -> tuple[Any, ...]:
        return tuple(ring.slots)

    def make_pool_batch(
        self,
        indices: list[int],
        seq_lens: list[int],
        *,
        mirror: bool,
        finished: bool = False,
        coordinator: Any = None,
    ) -> Any:
        reqs = [fakes.Req(i, n, finished=finished) for i, n in zip(indices, seq_lens, strict=False)]
        return fakes.RefScheduleBatch(
            reqs=reqs,
            req_pool_indices=torch.tensor(indices, dtype=torch.int64),
            req_pool_indices_cpu=torch.tensor(indices, dtype=torch.int64) if mirror else None,
            seq_lens=torch.tensor(seq_lens, dtype=torch.int64),
            seq_lens_cpu=torch.tensor(seq_lens, dtype=torch.int64),
            orig_seq_lens=torch.tensor(seq_lens, dtype=torch.int32),
            seq_lens_sum=sum(seq_lens),
            spec_algorithm=SpecAlgo("none"),
            sampling_info=fakes.FakeSamplingInfo(fakes.NotRequiredOrchestrator()),
            hisparse_coordinator=coordinator,
        )

    def prepare_for_decode(self, batch: Any) -> None:
        batch.prepare_for_decode()

    def build_decode_batch(self, reqs: list[Any]) -> Any:
        device_indices, mirror = runtime.build_req_pool_indices(reqs, "cpu")
        return fakes.RefScheduleBatch(reqs=list(reqs), req_pool_indices=device_indices, req_pool_indices_cpu=mirror)


# ------------------------------------------------------------------------------- a tree


def _uses(module: Any, name: str) -> Any:
    """``name`` as ``module`` reaches it: a global of that name, or an attribute of a module it
    imported (``from x import runtime as rt; rt.name(...)``). None when it does not."""
    if module is None:
        return None
    namespace = vars(module)
    found = namespace.get(name)
    if callable(found):
        return found
    for value in namespace.values():
        if isinstance(value, type(module)) and value is not module:
            # vars(), not getattr(): stub modules answer every name through __getattr__.
            found = vars(value).get(name)
            if callable(found):
                return found
    return None


def _source(obj: Any) -> str:
    try:
        return inspect.getsource(obj)
    except (OSError, TypeError):
        return ""


class TreeImpl(Impl):
    """A target tree's own implementations (see the module docstring)."""

    name = "tree"

    def __init__(self, tree: Any) -> None:  # an sglang_import.SGLangTree
        self.tree = tree
        self.description = f"sglang {tree.version or '?'} at {tree.root}"
        self.batch_class = tree.ScheduleBatch
        self.CaptureHiddenMode = tree.CaptureHiddenMode
        self.ForwardMode = tree.ForwardMode
        self.notes: list[str] = []
        fields = set(tree.field_names())
        self._fields = fields
        sb_module = tree.schedule_batch
        sched_module = tree.module("sglang.srt.managers.scheduler")
        Scheduler = tree.Scheduler  # noqa: N806
        spec_utils = tree.spec_utils

        profile: dict[str, Optional[str]] = dict.fromkeys(GROUPS_WITH_PROFILE)
        # One-shot: the three fields, consumed by ForwardBatch.init_new(batch, model_runner).
        if set(ONE_SHOT_FIELDS) <= fields and tree.ForwardBatch is not None and self.CaptureHiddenMode:
            profile["oneshot"] = "contract"
        else:
            self.notes.append("oneshot: ScheduleBatch has no one-shot override fields (0.5.12 or 0.5.16+)")
        # Isolation: the runtime's function imported by the scheduler, or upstream's method.
        self._isolation_fn: Optional[Callable[..., Any]] = None
        self._ring_cls: Optional[type] = None
        isolation_fn = _uses(sched_module, "overlap_forward_isolation")
        if isolation_fn is not None:
            self._isolation_fn = isolation_fn
            fn_module = inspect.getmodule(isolation_fn)
            self._ring_cls = _uses(sched_module, "BatchRecordRing") or getattr(fn_module, "BatchRecordRing", None)
            profile["isolation"] = "runtime"
            profile["ring"] = "runtime" if self._ring_cls is not None else None
            self.gates = ("spec_v2", "any_spec")
        elif Scheduler is not None and hasattr(Scheduler, "_forward_isolation"):
            profile["isolation"] = "upstream"
            profile["ring"] = "upstream" if hasattr(Scheduler, "record_batch_in_overlap") else None
            source = _source(Scheduler._forward_isolation)
            self.native_gate = "spec_v2" if "is_spec_v2" in source else "any_spec"
            self.gates = (self.native_gate,)
            self.notes.append(
                "isolation: upstream Scheduler._forward_isolation (known limitations asserted: "
                "non-dataclass attributes not restored, nested isolation fails inside copy_for_forward, "
                "a failed pin leaves the forward copy, overrides set before entry are resurrected)"
            )
        else:
            self.notes.append("isolation: no _forward_isolation and no overlap_forward_isolation in the scheduler")
        # Streams.
        each = getattr(spec_utils, "record_stream_each", None) if spec_utils is not None else None
        verify = getattr(spec_utils, "record_stream_for_v2_verify", None) if spec_utils is not None else None
        if callable(each) and callable(verify):
            self.record_stream_each = each
            self.record_stream_for_v2_verify = verify
            native = getattr(verify, "__module__", "") == spec_utils.__name__
            profile["streams"] = "upstream" if native else "runtime"
            self.verify_input_attrs = (
                self._constant_names(verify)
                if native
                else tuple(getattr(inspect.getmodule(verify), "V2_VERIFY_INPUT_ATTRS", runtime.V2_VERIFY_INPUT_ATTRS))
            )
        else:
            self.notes.append("streams: spec_utils has no record_stream helpers")
        # Request pool.
        builder = getattr(Scheduler, "_build_hisparse_decode_batch", None) if Scheduler is not None else None
        profile["hisparse_builder"] = None
        if builder is not None and "req_pool_indices_cpu" in fields:
            populates = "req_pool_indices_cpu" in _source(builder) or "build_req_pool_indices" in _source(builder)
            profile["hisparse_builder"] = "fixed" if populates else "upstream"
        if "req_pool_indices_cpu" in fields:
            if _uses(sb_module, "ensure_req_pool_indices_cpu") is not None:
                profile["req_pool"] = "fixed"
            else:
                profile["req_pool"] = "upstream"
                self.notes.append(
                    "req_pool: the request-pool fix is not applied (upstream through 0.5.23); "
                    "its documented failure modes are asserted instead"
                )
        else:
            self.notes.append("req_pool: ScheduleBatch has no req_pool_indices_cpu mirror")
        self.profile = profile
        self._scheduler_cls = Scheduler
        self._sb_module = sb_module

    @staticmethod
    def _constant_names(fn: Callable[..., Any]) -> tuple[str, ...]:
        """The verify_input attribute names upstream's function lists (a tuple constant)."""
        for const in fn.__code__.co_consts:
            if isinstance(const, tuple) and const and all(isinstance(c, str) for c in const) and "draft_token" in const:
                return const
        return ()

    # Batches -------------------------------------------------------------------------------------
    def _model_config(self) -> Any:
        return SimpleNamespace(
            is_encoder_decoder=False,
            vocab_size=4,
            is_matryoshka=False,
            hidden_size=8,
            is_multimodal=False,
        )

    def make_batch(self, spec: str = "none", cls: Optional[type] = None, **fields: Any) -> Any:
        values: dict[str, Any] = dict(
            reqs=[],
            model_config=self._model_config(),
            device="cpu",
            forward_mode=self.ForwardMode.IDLE,
            spec_algorithm=SpecAlgo(spec),
            # Before 0.5.13 a batch is spec-v2 only with overlap on (is_spec_v2 checks both).
            enable_overlap=spec == "v2",
            seq_lens=empty(),
            seq_lens_cpu=empty(),
            orig_seq_lens=empty(torch.int32),
            req_pool_indices=empty(),
            req_pool_indices_cpu=empty(),
            seq_lens_sum=0,
            input_ids=empty(),
            out_cache_loc=empty(),
        )
        values.update(fields)
        klass = cls or self.batch_class
        names = {f.name for f in dataclasses.fields(klass)}
        return klass(**{k: v for k, v in values.items() if k in names or k in fields})

    def make_sampling_info(self, orchestrator: Any) -> Any:
        SamplingBatchInfo = self.tree.SamplingBatchInfo  # noqa: N806
        if SamplingBatchInfo is None:
            return super().make_sampling_info(orchestrator)
        wanted = dict(
            temperatures=torch.ones(1, 1),
            top_ps=torch.ones(1),
            top_ks=torch.ones(1, dtype=torch.int32),
            min_ps=torch.zeros(1),
            is_all_greedy=True,
            need_top_p_sampling=False,
            need_top_k_sampling=False,
            need_min_p_sampling=False,
            vocab_size=4,
            penalizer_orchestrator=orchestrator,
            device="cpu",
        )
        names = {f.name for f in dataclasses.fields(SamplingBatchInfo)}
        return SamplingBatchInfo(**{k: v for k, v in wanted.items() if k in names})

    # One-shot -------------------------------------------------------------------------------------
    def init_new(self, batch: Any) -> Any:
        ForwardBatch = self.tree.ForwardBatch  # noqa: N806
        module = inspect.getmodule(ForwardBatch)
        runner = SimpleNamespace(
            device="cpu",
            server_args=SimpleNamespace(enable_lora=False),
            is_generation=True,
            model_is_mrope=False,
            lora_manager=None,
            spec_algorithm=SpecAlgo("none"),
            # What 0.5.12-era init_new reads off the runner besides.
            req_to_token_pool=None,
            token_to_kv_pool=None,
            token_to_kv_pool_allocator=None,
            attn_backend=None,
            is_hybrid_swa=False,
            use_ngram_embedding=False,
            is_draft_worker=False,
        )
        with contextlib.ExitStack() as stack:
            if hasattr(module, "enable_num_token_non_padded"):
                stack.enter_context(mock.patch.object(module, "enable_num_token_non_padded", lambda *a, **k: False))
            return ForwardBatch.init_new(batch, runner)

    # Isolation and ring ---------------------------------------------------------------------------
    def _scheduler(self, with_ring: bool) -> Any:
        holder = object.__new__(self._scheduler_cls)
        if with_ring:
            holder.batch_record_buf = [None] * 2
            holder.batch_record_ct = 0
        return holder

    def make_ring(self) -> Any:
        if self.profile["ring"] == "runtime":
            assert self._ring_cls is not None  # the "runtime" ring profile is given with the class only
            return self._ring_cls(2)
        return self._scheduler(with_ring=True)

    def isolation(
        self, batch: Any, ring: Any = None, *, gate: Optional[str] = None, overlap: Optional[bool] = None
    ) -> ContextManager[Any]:
        overlap = ring is not None if overlap is None else overlap
        if self.profile["isolation"] == "runtime":
            assert self._isolation_fn is not None  # the "runtime" profile is given with the function only
            isolation: ContextManager[Any] = self._isolation_fn(batch, ring if overlap else None, snapshot=gate)
            return isolation
        if gate is not None and gate != self.native_gate:
            raise ValueError(f"upstream isolation has a fixed gate ({self.native_gate})")
        holder = ring if ring is not None else self._scheduler(with_ring=False)
        upstream: ContextManager[Any] = holder._forward_isolation(batch, overlap=overlap)
        return upstream

    def failing_pin(self) -> Any:
        if self.profile["isolation"] == "runtime":
            return _RaisingRing()
        return self._scheduler(with_ring=False)  # overlap=True without init_overlap: AttributeError

    def record(self, ring: Any, batch: Any) -> None:
        if self.profile["ring"] == "runtime":
            ring.record(batch)
        else:
            ring.record_batch_in_overlap(batch)

    def keep_alive(self, ring: Any, *refs: Any) -> None:
        if self.profile["ring"] == "runtime":
            ring.keep_alive(*refs)
        else:
            ring.batch_record_buf[ring.batch_record_ct].extend(refs)

    def ring_index(self, ring: Any) -> int:
        return int(ring.index if self.profile["ring"] == "runtime" else ring.batch_record_ct)

    def ring_slots(self, ring: Any) -> tuple[Any, ...]:
        return tuple(ring.slots) if self.profile["ring"] == "runtime" else tuple(ring.batch_record_buf)

    # Request pool -------------------------------------------------------------------------------
    def make_pool_batch(
        self,
        indices: list[int],
        seq_lens: list[int],
        *,
        mirror: bool,
        finished: bool = False,
        coordinator: Any = None,
    ) -> Any:
        reqs = [fakes.Req(i, n, finished=finished) for i, n in zip(indices, seq_lens, strict=False)]
        return self.make_batch(
            reqs=reqs,
            forward_mode=self.ForwardMode.DECODE,
            req_pool_indices=torch.tensor(indices, dtype=torch.int64),
            req_pool_indices_cpu=torch.tensor(indices, dtype=torch.int64) if mirror else None,
            seq_lens=torch.tensor(seq_lens, dtype=torch.int64),
            seq_lens_cpu=torch.tensor(seq_lens, dtype=torch.int64),
            orig_seq_lens=torch.tensor(seq_lens, dtype=torch.int32),
            seq_lens_sum=sum(seq_lens),
            input_ids=None,
            out_cache_loc=None,
            sampling_info=fakes.FakeSamplingInfo(fakes.NotRequiredOrchestrator()),
            hisparse_coordinator=coordinator,
        )

    @contextlib.contextmanager
    def _decode_patches(self) -> Iterator[None]:
        server_args = SimpleNamespace(
            enable_mamba_extra_buffer=lambda: False,
            enable_mamba_extra_buffer_lazy=lambda: False,
            mamba_track_interval=1,
        )

        def alloc_for_decode(batch: Any, token_per_req: int = 1) -> torch.Tensor:
            return torch.arange(len(batch.reqs), dtype=torch.int64) + 42

        with contextlib.ExitStack() as stack:
            for name, value in (
                ("alloc_for_decode", alloc_for_decode),
                ("get_global_server_args", lambda: server_args),
            ):
                if hasattr(self._sb_module, name):
                    stack.enter_context(mock.patch.object(self._sb_module, name, value))
            yield

    def prepare_for_decode(self, batch: Any) -> None:
        with self._decode_patches():
            batch.prepare_for_decode()

    def build_decode_batch(self, reqs: list[Any]) -> Any:
        scheduler = object.__new__(self._scheduler_cls)
        scheduler.device = "cpu"
        scheduler.req_to_token_pool = SimpleNamespace(device="cpu")
        scheduler.token_to_kv_pool_allocator = None
        scheduler.tree_cache = None
        scheduler.model_config = self._model_config()
        scheduler.enable_overlap = False
        scheduler.spec_algorithm = SpecAlgo("none")
        scheduler.future_map = mock.MagicMock()
        sched_module = inspect.getmodule(self._scheduler_cls)
        with contextlib.ExitStack() as stack:
            info = getattr(sched_module, "SamplingBatchInfo", None)
            if info is not None:
                stack.enter_context(
                    mock.patch.object(info, "from_schedule_batch", lambda batch, vocab_size: fakes.FakeSamplingInfo())
                )
            return scheduler._build_hisparse_decode_batch(reqs)

    def req_pool_helpers(self) -> tuple[Callable[..., Any], Callable[..., Any]]:
        return (
            _uses(self._sb_module, "ensure_req_pool_indices_cpu") or runtime.ensure_req_pool_indices_cpu,
            _uses(self._sb_module, "clear_req_pool_metadata") or runtime.clear_req_pool_metadata,
        )


# ------------------------------------------------------------------------------- discovery


@dataclasses.dataclass
class TreeStatus:
    path: Optional[str]
    root: Optional[str] = None
    version: Optional[str] = None
    importable: bool = False
    is_core: bool = False  # holds sglang/srt/managers/schedule_batch.py
    reason: Optional[str] = None
    stubbed: tuple[str, ...] = ()
    problems: dict[str, str] = dataclasses.field(default_factory=dict)
    absent: tuple[str, ...] = ()


def load_tree(path: Optional[str]) -> tuple[Optional[TreeImpl], Optional[TreeStatus]]:
    """Import the tree at ``path`` (None: no tree) and wrap it, or say why not."""
    if not path:
        return None, None
    from mwbmigrate.verify.sglang_import import SGLangImportError, find_sglang_root, import_sglang_tree

    status = TreeStatus(path=str(path))
    root = find_sglang_root(path)
    if root is None:
        status.reason = "no sglang/ package under this path: only the runtime is tested"
        return None, status
    status.root = str(root)
    status.is_core = (Path(root) / "sglang" / "srt" / "managers" / "schedule_batch.py").is_file()
    try:
        tree = import_sglang_tree(root)
    except SGLangImportError as error:
        status.reason = error.reason
        return None, status
    status.importable = True
    status.version = tree.version
    status.stubbed = tree.stubbed
    status.problems = dict(tree.problems)
    status.absent = tuple(tree.absent)
    try:
        return TreeImpl(tree), status
    except Exception as error:  # noqa: BLE001 - reported by the import test
        status.importable = False
        status.reason = f"imported, but its classes cannot be wrapped: {type(error).__name__}: {error}"
        return None, status
