"""The SGLang versions a migration can target, and what differs between them.

0.5.13-0.5.15: the one-shot per-forward overrides are `ScheduleBatch` fields that the next
`ForwardBatch.init_new` consumes and resets (`batch.capture_hidden_mode = M`).
0.5.16 on: the fields are gone. `ForwardBatch.init_new(batch, model_runner, *, capture_hidden_mode=None,
return_hidden_states_before_norm)` takes two of them as keyword arguments,
`TpModelWorker.forward_batch_generation(..., *, capture_hidden_mode=None)` passes the first one
through, and `seq_lens_cpu_cache` has no successor (init_new reads `batch.seq_lens_cpu`).
"""

from __future__ import annotations

TARGET_VERSIONS = ("0.5.13", "0.5.16")
DEFAULT_TARGET_VERSION = "0.5.13"
KEYWORD_OVERRIDES_SINCE = "0.5.16"

# Consuming call -> the override keywords it takes in 0.5.16, in the order 0.5.16 passes them.
OVERRIDE_KEYWORDS = {
    "init_new": ("capture_hidden_mode", "return_hidden_states_before_norm"),
    "forward_batch_generation": ("capture_hidden_mode",),
}
# 0.5.16 made this keyword of init_new required; every call site passes it (False unless set).
REQUIRED_INIT_NEW_KEYWORD = "return_hidden_states_before_norm"


def overrides_are_arguments(target_version: str) -> bool:
    """True when the target passes the one-shot overrides as keyword arguments (0.5.16 on)."""
    return target_version == KEYWORD_OVERRIDES_SINCE
