"""Runtime helpers a migrated SGLang tree imports (or vendors) for the 0.5.13 ScheduleBatch contract.

* :mod:`.overrides` -- one-shot per-forward overrides on the batch (0.5.13 to 0.5.15.post1),
  or as ``init_new`` keyword arguments (0.5.16 to 0.5.23);
* :mod:`.isolation` -- :func:`overlap_forward_isolation`, a batch made transactional
  across one forward;
* :mod:`.ring` -- :class:`BatchRecordRing`, keep-alive of a batch's objects for N
  iterations;
* :mod:`.streams` -- ``record_stream`` helpers for tensors used on the forward stream;
* :mod:`.req_pool` -- the ``req_pool_indices_cpu`` host mirror;
* :mod:`.forward_view` -- what a migrated ``ForwardBatch.init_new`` reads from the batch;
* :mod:`.snapshot` -- :func:`worker_batch_snapshot`, the per-forward snapshot
  ``get_model_worker_batch()`` returned, where a rewrite keeps it.

Self-contained on purpose: it imports nothing else from mwbmigrate and never imports
sglang; imports inside the package are relative, so the folder can be copied into
another tree under any name. torch is needed only by :mod:`.req_pool` (imported on first
use) and by callers of :mod:`.streams` that hold tensors.
"""

from .forward_view import ForwardBatchView, forward_batch_view
from .isolation import (
    ForwardIsolation,
    NestedIsolationError,
    SnapshotPolicy,
    SupportsRecord,
    is_isolated,
    overlap_forward_isolation,
    restore_batch,
    snapshot_batch,
)
from .overrides import (
    FORWARD_OVERRIDE_DEFAULTS,
    FORWARD_OVERRIDE_NAMES,
    CaptureHiddenModeUnresolvedError,
    ForwardOverrideFields,
    ForwardOverrides,
    ResolvedForwardOverrides,
    StaleSeqLensCpuCacheError,
    apply_forward_overrides,
    consume_forward_overrides,
    derive_capture_hidden_mode,
    reset_forward_overrides,
    resolve_forward_arguments,
)
from .req_pool import (
    ReqPoolIndices,
    build_req_pool_indices,
    clear_req_pool_metadata,
    ensure_req_pool_indices_cpu,
)
from .ring import BatchRecordRing, EmptyRingError
from .snapshot import WorkerBatchSnapshot, worker_batch_capture_mode, worker_batch_snapshot
from .streams import (
    V2_VERIFY_BATCH_ATTRS,
    V2_VERIFY_INPUT_ATTRS,
    record_stream_each,
    record_stream_for_v2_verify,
)

__all__ = [
    "ForwardBatchView",
    "forward_batch_view",
    "FORWARD_OVERRIDE_DEFAULTS",
    "FORWARD_OVERRIDE_NAMES",
    "V2_VERIFY_BATCH_ATTRS",
    "V2_VERIFY_INPUT_ATTRS",
    "BatchRecordRing",
    "CaptureHiddenModeUnresolvedError",
    "EmptyRingError",
    "ForwardIsolation",
    "ForwardOverrideFields",
    "ForwardOverrides",
    "NestedIsolationError",
    "ReqPoolIndices",
    "ResolvedForwardOverrides",
    "SnapshotPolicy",
    "StaleSeqLensCpuCacheError",
    "SupportsRecord",
    "WorkerBatchSnapshot",
    "apply_forward_overrides",
    "build_req_pool_indices",
    "clear_req_pool_metadata",
    "consume_forward_overrides",
    "derive_capture_hidden_mode",
    "ensure_req_pool_indices_cpu",
    "is_isolated",
    "overlap_forward_isolation",
    "record_stream_each",
    "record_stream_for_v2_verify",
    "reset_forward_overrides",
    "resolve_forward_arguments",
    "restore_batch",
    "snapshot_batch",
    "worker_batch_capture_mode",
    "worker_batch_snapshot",
]
