"""What `ForwardBatch.init_new` used to read from a ModelWorkerBatch, computed from a ScheduleBatch.

A migrated tree whose `init_new` still reads the old object's fields starts it with

    batch = forward_batch_view(batch, CaptureHiddenMode)

The view consumes and resets the one-shot overrides on the batch (0.5.13's contract), sets the
grammars on `sampling_info` as `get_model_worker_batch` did, and answers the fields the old object
derived: `extend_lens`/`prefix_lens`/`extend_logprob_start_lens` (and their old names) are None in
decode/idle, `capture_hidden_mode` is the override or the derived mode, `seq_lens_cpu` is the
override when one was set, `lora_ids`/`dllm_block_offsets` come from the requests. Every other
attribute reads and writes through to the batch itself.

A tree migrated for SGLang 0.5.16 passes the overrides to `init_new` as keyword arguments and
hands them on:

    batch = forward_batch_view(batch, CaptureHiddenMode, capture_hidden_mode=capture_hidden_mode,
                               return_hidden_states_before_norm=return_hidden_states_before_norm)

Then nothing on the batch is read or reset (0.5.16's batch has no such fields), and `seq_lens_cpu`
is the batch's own.

Targets served (`--target-version`): without the keywords, 0.5.13 to 0.5.15.post1, whose batch
still has the fields; with them, 0.5.16 to 0.5.23. When neither the call nor the batch gives a
capture mode, the view derives it by the 0.5.13-0.5.16 rule (FULL when `batch.return_hidden_states`,
else the speculative input's mode, else NULL). SGLang's own `init_new` changed that rule in 0.5.17
(NULL on a draft worker, else from `batch.return_hidden_states_mode` and the server's mode); a
migrated `init_new` keeps the rule its own code had, and a caller that needs 0.5.17's passes
`capture_hidden_mode=` itself. The keyword-only parameters 0.5.22 adds to `init_new`
(`extend_position_info`, `spec_mrope_positions`, `kv_loc_plan`, `write_cols`) are `init_new`'s
own business; the view neither takes nor needs them.
"""

from __future__ import annotations

from typing import Any

from .overrides import apply_forward_overrides, resolve_forward_arguments

__all__ = ["ForwardBatchView", "forward_batch_view"]

# Neither keyword given: the overrides are read (and reset) from the batch, the 0.5.13 contract.
_FROM_BATCH: Any = object()

GATED_FIELDS = {
    "extend_lens": ("extend_lens", "extend_seq_lens"),
    "prefix_lens": ("prefix_lens", "extend_prefix_lens"),
    "extend_logprob_start_lens": ("extend_logprob_start_lens",),
}


class ForwardBatchView:
    """A ScheduleBatch seen as the old per-forward object; writes go to the batch."""

    __slots__ = ("_batch", "_values")

    def __init__(self, batch: Any, values: dict[str, Any]) -> None:
        object.__setattr__(self, "_batch", batch)
        object.__setattr__(self, "_values", values)

    @property
    def schedule_batch(self) -> Any:
        return object.__getattribute__(self, "_batch")

    def __getattr__(self, name: str) -> Any:
        values = object.__getattribute__(self, "_values")
        if name in values:
            return values[name]
        return getattr(object.__getattribute__(self, "_batch"), name)

    def __setattr__(self, name: str, value: Any) -> None:
        object.__getattribute__(self, "_values").pop(name, None)
        setattr(object.__getattribute__(self, "_batch"), name, value)

    def __repr__(self) -> str:
        return f"ForwardBatchView({object.__getattribute__(self, '_batch')!r})"


def _decode_or_idle(batch: Any) -> bool:
    mode = getattr(batch, "forward_mode", None)
    check = getattr(mode, "is_decode_or_idle", None)
    return bool(check()) if callable(check) else False


def forward_batch_view(
    batch: Any,
    capture_hidden_modes: Any = None,
    *,
    capture_hidden_mode: Any = _FROM_BATCH,
    return_hidden_states_before_norm: Any = _FROM_BATCH,
) -> ForwardBatchView:
    """Return the view `init_new` reads, with the per-forward overrides resolved.

    Without the keywords (0.5.13), the batch's one-shot override fields are consumed and reset.
    With either keyword (0.5.16's `init_new` arguments; the other one takes its default), the
    fields are neither read nor reset, so a batch class without them works, and one that still
    declares them keeps whatever older code left there. Idempotent on a view (returns it
    unchanged, consuming nothing twice). `capture_hidden_modes` is SGLang's `CaptureHiddenMode`
    class, used to derive the mode when no override is given.
    """
    if isinstance(batch, ForwardBatchView):
        return batch
    if capture_hidden_mode is _FROM_BATCH and return_hidden_states_before_norm is _FROM_BATCH:
        resolved = apply_forward_overrides(batch, modes=capture_hidden_modes)
    else:
        resolved = resolve_forward_arguments(
            batch,
            None if capture_hidden_mode is _FROM_BATCH else capture_hidden_mode,
            False if return_hidden_states_before_norm is _FROM_BATCH else return_hidden_states_before_norm,
            modes=capture_hidden_modes,
        )
    reqs = list(getattr(batch, "reqs", None) or ())
    sampling_info = getattr(batch, "sampling_info", None)
    if sampling_info is not None:
        sampling_info.grammars = [req.grammar for req in reqs] if getattr(batch, "has_grammar", False) else None
    gated = _decode_or_idle(batch)
    values: dict[str, Any] = {
        "capture_hidden_mode": resolved.capture_hidden_mode,
        "return_hidden_states_before_norm": resolved.return_hidden_states_before_norm,
        "seq_lens_cpu": resolved.seq_lens_cpu,
        "lora_ids": [getattr(req, "lora_id", None) for req in reqs],
        "dllm_block_offsets": [getattr(req, "dllm_block_offset", None) for req in reqs],
    }
    for field, names in GATED_FIELDS.items():
        value = None if gated else getattr(batch, field, None)
        for name in names:
            values[name] = value
    return ForwardBatchView(batch, values)
