"""Keep ``ScheduleBatch.req_pool_indices_cpu`` (the host mirror) in step with the device tensor.

SGLang 0.5.13 added the CPU mirror ``req_pool_indices_cpu`` (int64, on the host) next to
``req_pool_indices`` (int64, on ``batch.device``); HiSparse decode bookkeeping does
``int(req_pool_indices_cpu[i])`` and crashes on a None mirror. Upstream fixed only the
hisparse decode-batch builder (0.5.14); the defensive parts of PR #28514 are in no
release through 0.5.23, so a migrated tree needs them on every version:

* before ``prepare_for_decode`` and on both sides before ``merge_batch``:
  :func:`ensure_req_pool_indices_cpu`;
* when ``filter_batch`` filters every request out: :func:`clear_req_pool_metadata`
  (upstream leaves stale tensors that a later merge concatenates, see #21514);
* wherever a builder makes the device tensor: :func:`build_req_pool_indices`, so the
  mirror comes from the same list.

torch is imported when a helper first runs, not at import time. No sglang import.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Iterable, NamedTuple, Optional

if TYPE_CHECKING:  # pragma: no cover - typing only
    import torch

__all__ = [
    "ReqPoolIndices",
    "build_req_pool_indices",
    "clear_req_pool_metadata",
    "ensure_req_pool_indices_cpu",
]


class ReqPoolIndices(NamedTuple):
    """``req_pool_indices`` on the target device and its int64 CPU mirror."""

    req_pool_indices: torch.Tensor
    req_pool_indices_cpu: torch.Tensor


def _batch_device(batch: Any) -> Any:
    """``batch.device``, else the device of an existing metadata tensor, else CPU."""
    device = getattr(batch, "device", None)
    if device is not None:
        return device
    for name in ("req_pool_indices", "seq_lens", "orig_seq_lens"):
        device = getattr(getattr(batch, name, None), "device", None)
        if device is not None:
            return device
    return "cpu"


def ensure_req_pool_indices_cpu(batch: Any) -> Optional[torch.Tensor]:
    """Restore a missing CPU mirror from ``batch.req_pool_indices``; return the mirror.

    * Mirror present (not None): nothing changes, it is returned as is.
    * Mirror None and device tensor present: the mirror becomes a fresh int64 CPU copy
      of it (never an alias, even when the device is the CPU). For a CUDA tensor this
      synchronises, like any ``.cpu()``.
    * Both None: nothing changes, None is returned.

    Idempotent.
    """
    present: Optional[torch.Tensor] = getattr(batch, "req_pool_indices_cpu", None)
    if present is not None:
        return present
    device_indices = getattr(batch, "req_pool_indices", None)
    if device_indices is None:
        return None
    import torch

    mirror: torch.Tensor = device_indices.detach().to(device="cpu", dtype=torch.int64, copy=True)
    batch.req_pool_indices_cpu = mirror
    return mirror


def clear_req_pool_metadata(batch: Any) -> None:
    """Reset request-pool and sequence-length metadata for a batch with no requests left.

    Sets, on the batch device (``batch.device``; else that of an existing tensor; else
    CPU) unless noted:

    ==========================  ===========================
    ``req_pool_indices``        empty int64
    ``req_pool_indices_cpu``    empty int64, CPU
    ``seq_lens``                empty int64
    ``seq_lens_cpu``            empty int64, CPU
    ``orig_seq_lens``           empty int32
    ``out_cache_loc``           None
    ``seq_lens_sum``            0
    ==========================  ===========================

    Dtypes are upstream's (``prepare_for_idle``). Call it in ``filter_batch``'s
    filter-everything branch, so that a later ``merge_batch`` concatenates nothing
    stale. Idempotent.
    """
    import torch

    device = _batch_device(batch)
    batch.req_pool_indices = torch.empty(0, dtype=torch.int64, device=device)
    batch.req_pool_indices_cpu = torch.empty(0, dtype=torch.int64)
    batch.seq_lens = torch.empty(0, dtype=torch.int64, device=device)
    batch.seq_lens_cpu = torch.empty(0, dtype=torch.int64)
    batch.orig_seq_lens = torch.empty(0, dtype=torch.int32, device=device)
    batch.out_cache_loc = None
    batch.seq_lens_sum = 0


def build_req_pool_indices(reqs: Iterable[Any], device: Any) -> ReqPoolIndices:
    """Build ``req_pool_indices`` on ``device`` and its CPU mirror from one list.

    Reads ``req.req_pool_idx`` once per request (``reqs`` may be any iterable) and
    builds both int64 tensors from that single list, so they cannot disagree. The two
    never share storage, even when ``device`` is the CPU. Returns a
    :class:`ReqPoolIndices`, which unpacks as ``(device_tensor, cpu_mirror)``.
    """
    import torch

    indices = [req.req_pool_idx for req in reqs]
    cpu = torch.tensor(indices, dtype=torch.int64)
    on_device = torch.tensor(indices, dtype=torch.int64, device=device)
    return ReqPoolIndices(on_device, cpu)
