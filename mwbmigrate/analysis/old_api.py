"""The old API's names, the field mapping and how SGLang's `ModelWorkerBatch` is recognised.

The class is identified by qualified name, never by spelling: a JAX port or a test that defines its
own `ModelWorkerBatch` must not be touched.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import PurePosixPath

from libcst.metadata import QualifiedName, QualifiedNameSource

OLD_CLASS = "ModelWorkerBatch"
NEW_CLASS = "ScheduleBatch"
OLD_METHOD = "get_model_worker_batch"
OLD_PARAMETER = "model_worker_batch"
NEW_PARAMETER = "batch"
# Used when `batch` is already bound to something else in the scope (upstream gives no precedent).
FALLBACK_PARAMETER = "schedule_batch"

# ModelWorkerBatch field -> ScheduleBatch field, where the names differ (spec section 2).
RENAMED_FIELDS = {
    "extend_seq_lens": "extend_lens",
    "extend_prefix_lens": "prefix_lens",
}
# ModelWorkerBatch fields that were lists computed from the requests: field -> per-request attribute.
FIELDS_COMPUTED_FROM_REQS = {
    "lora_ids": "lora_id",
    "dllm_block_offsets": "dllm_block_offset",
}
# Public SGLang functions whose parameter upstream renamed in 0.5.13: keyword callers in plugins
# follow them even when the definition is not in the tree being migrated.
UPSTREAM_RENAMED_PARAMETERS: dict[str, dict[str, str]] = {
    name: {OLD_PARAMETER: NEW_PARAMETER}
    for name in (
        "forward_batch_generation", "forward_batch_embedding", "record_batch_in_overlap",
        "async_forward_batch_generation_mlx", "draft",
    )
}
# One-shot per-forward overrides that moved onto ScheduleBatch; `ForwardBatch.init_new` consumes them.
ONE_SHOT_OVERRIDES = ("seq_lens_cpu_cache", "capture_hidden_mode", "return_hidden_states_before_norm")
OVERRIDE_ARGUMENT = "seq_lens_cpu_cache"  # the only parameter get_model_worker_batch took

# A file that never mentions these bytes cannot need a change and is never parsed.
OLD_API_BYTES = re.compile(rb"ModelWorkerBatch|model_worker_batch")
# What any codemod can act on: the old API, or the request-pool mirror's owners and builders.
PREFILTER_BYTES = re.compile(rb"ModelWorkerBatch|model_worker_batch|class ScheduleBatch\b|req_pool_idx for ")

SCHEDULE_BATCH_MODULE_SUFFIX = "managers.schedule_batch"


@dataclass(frozen=True)
class ModuleLocation:
    """Where the file being rewritten sits, which decides how relative imports are read."""

    path: str  # posix path of the module, absolute when it is on disk
    extra_modules: tuple[str, ...] = ()  # further dotted module paths that define SGLang's class

    @property
    def parts(self) -> tuple[str, ...]:
        return PurePosixPath(self.path).parts

    @property
    def inside_sglang(self) -> bool:
        return "sglang" in self.parts[:-1]

    @property
    def is_schedule_batch_module(self) -> bool:
        return self.inside_sglang and self.parts[-2:] == ("managers", "schedule_batch.py")


def is_sglang_schedule_batch_module(module: str, location: ModuleLocation) -> bool:
    """True when dotted `module` (possibly relative, leading dots) is SGLang's `schedule_batch`."""
    if module in location.extra_modules:
        return True
    if module.startswith("."):
        # Relative imports are SGLang's only when the importing file lives inside an `sglang` package.
        stripped = module.lstrip(".")
        return location.inside_sglang and (stripped == "schedule_batch" or stripped.endswith(".schedule_batch"))
    parts = module.split(".")
    return module.endswith(SCHEDULE_BATCH_MODULE_SUFFIX) and "sglang" in parts[:-2]


def is_old_class(qualified_names: set[QualifiedName], location: ModuleLocation) -> bool:
    for qualified in qualified_names:
        module, _, name = qualified.name.rpartition(".")
        if name != OLD_CLASS:
            continue
        if qualified.source is QualifiedNameSource.IMPORT and is_sglang_schedule_batch_module(module, location):
            return True
        if qualified.source is QualifiedNameSource.LOCAL and not module and location.is_schedule_batch_module:
            return True
    return False
