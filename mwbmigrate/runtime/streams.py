"""Tell the CUDA caching allocator that tensors are also used on another stream.

Equivalent of SGLang's ``spec_utils.record_stream_each`` and
``record_stream_for_v2_verify`` (0.5.13-0.5.23), with these differences:

* nested lists and tuples are flattened (upstream silently skipped them), and a bare
  tensor counts as one tensor (upstream iterated its rows);
* every batch attribute is optional (upstream raised AttributeError for a missing one);
* the verify attributes are the union over 0.5.13-0.5.23 (0.5.22 added two);
* the functions return how many ``record_stream`` calls they made;
* ``stream=None`` means "the current stream of each tensor's device".

Only tensors with ``is_cuda`` true are recorded (ROCm tensors report it too). CPU
tensors, ``None`` and anything else are skipped, and ``torch.cuda`` is never touched
unless a CUDA tensor is actually present, so on a CPU-only host these are no-ops.
torch is never imported here: if it is not imported yet, no tensor can exist.
"""

from __future__ import annotations

import sys
from typing import Any, Final, Iterable, Optional

__all__ = [
    "V2_VERIFY_BATCH_ATTRS",
    "V2_VERIFY_INPUT_ATTRS",
    "record_stream_each",
    "record_stream_for_v2_verify",
]

#: Batch attributes recorded by ``record_stream_for_v2_verify`` (all versions).
V2_VERIFY_BATCH_ATTRS: Final[tuple[str, ...]] = (
    "seq_lens",
    "req_pool_indices",
    "input_ids",
    "out_cache_loc",
)
#: ``verify_input`` attributes, in upstream order: the six of 0.5.13-0.5.21 with the two
#: that 0.5.22 inserted after ``positions``.
V2_VERIFY_INPUT_ATTRS: Final[tuple[str, ...]] = (
    "draft_token",
    "custom_mask",
    "positions",
    "prepared_out_cache_loc",
    "prepared_mrope_positions",
    "retrieve_index",
    "retrieve_next_token",
    "retrieve_next_sibling",
)


def record_stream_each(tensors: Any, stream: Optional[Any]) -> int:
    """Call ``t.record_stream(stream)`` on every CUDA tensor in ``tensors``; return the count.

    ``tensors`` is a tensor, or any iterable (a generator too) whose items may be
    tensors, None, other objects, or nested lists/tuples of those. Lists and tuples are
    walked depth-first in order, each container once (so a cycle cannot loop); other
    iterables inside (dicts, sets, generators) are not entered. A tensor is recorded
    when it is a ``torch.Tensor`` (subclasses included) with ``is_cuda`` true; each
    occurrence is recorded, so the count includes repeats.

    ``stream`` is passed through unchecked; ``None`` resolves to
    ``torch.cuda.current_stream(t.device)``, looked up only for a CUDA tensor.
    """
    torch = sys.modules.get("torch")
    if torch is None:
        return 0  # torch was never imported, so there is no tensor to record
    tensor_type = torch.Tensor
    if isinstance(tensors, tensor_type):
        tensors = (tensors,)
    count = 0
    current: dict[Any, Any] = {}
    seen: set[int] = set()
    stack: list[Iterable[Any]] = [iter(tensors)]
    while stack:
        for item in stack[-1]:
            if isinstance(item, tensor_type):
                if item.is_cuda:
                    target = stream
                    if target is None:
                        device = item.device
                        target = current.get(device)
                        if target is None:
                            target = current[device] = torch.cuda.current_stream(device)
                    item.record_stream(target)
                    count += 1
            elif isinstance(item, (list, tuple)) and id(item) not in seen:
                seen.add(id(item))
                stack.append(iter(item))
                break
        else:
            stack.pop()
    return count


def record_stream_for_v2_verify(batch: Any, verify_input: Any, stream: Optional[Any]) -> int:
    """Record the pre-prepare tensors of a spec-v2 verify step on ``stream``; return the count.

    Candidates, in order: ``batch.{seq_lens, req_pool_indices, input_ids,
    out_cache_loc}`` then, when ``verify_input`` is not None, its
    :data:`V2_VERIFY_INPUT_ATTRS`. Any missing attribute is skipped. List-valued
    attributes are flattened (see :func:`record_stream_each`).

    Like upstream, this covers the tensors *before* ``prepare_for_v2_verify`` /
    ``prepare_for_verify`` rebinds ``batch.input_ids`` and ``batch.out_cache_loc``; the
    caller records the new ones with ``record_stream_each`` afterwards.
    """
    candidates = [getattr(batch, name, None) for name in V2_VERIFY_BATCH_ATTRS]
    if verify_input is not None:
        candidates.extend(getattr(verify_input, name, None) for name in V2_VERIFY_INPUT_ATTRS)
    return record_stream_each(candidates, stream)
