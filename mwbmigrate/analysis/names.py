"""Names and places the migration reads and writes, as plain data: the old parameter and the SGLang
functions upstream renamed it in, where a module sits, the marker comment and the runtime's module.
No LibCST: the command line and a run whose results all come from the cache read them too, and
import no codemod.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import PurePosixPath

OLD_PARAMETER = "model_worker_batch"
NEW_PARAMETER = "batch"

# The one table of SGLang functions whose `model_worker_batch` parameter upstream renamed to `batch`
# in 0.5.13 (spec C, J), each with whether a plugin may call it: mlx's two private helpers are called
# from SGLang's own tp_worker only. (`resolve_future` is not here: it disappeared with the parameter.)
_UPSTREAM_RENAMED: dict[str, bool] = {  # function name -> public
    "forward_batch_generation": True,
    "forward_batch_embedding": True,
    "record_batch_in_overlap": True,
    "async_forward_batch_generation_mlx": True,
    "draft": True,
    "_forward_batch_generation_mlx": False,
    "_async_extend_batch": False,
}
# The public ones, with their renamed parameters: keyword callers in plugins follow them even when
# the definition is not in the tree being migrated.
UPSTREAM_RENAMED_PARAMETERS: dict[str, dict[str, str]] = {
    name: {OLD_PARAMETER: NEW_PARAMETER} for name, public in _UPSTREAM_RENAMED.items() if public
}

# One-shot per-forward overrides that moved onto ScheduleBatch; `ForwardBatch.init_new` consumes them.
ONE_SHOT_OVERRIDES = ("seq_lens_cpu_cache", "capture_hidden_mode", "return_hidden_states_before_norm")

# `# type: X` (not `# type: ignore[...]`): only type checkers read it, so a class in it can be respelled.
TYPE_COMMENT = re.compile(r"#\s*type:\s*(?!ignore\b)")
# The data-flow line of SGLang's docstrings that the docstrings codemod rewrites.
OLD_FLOW = "ScheduleBatch -> ModelWorkerBatch -> ForwardBatch"

MARKER_PREFIX = "# mwbmigrate: "
MARKER_CONTINUATION = "#   "  # the wrapped lines of a marker written above its statement
# Where migrated code imports the runtime helpers from, unless `--runtime vendor` names a private copy.
RUNTIME_MODULE = "mwbmigrate.runtime"


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

    @property
    def sglang_context(self) -> tuple[str, ...]:
        """All the first pass's rules read of the path (with the path relative to the tree's root):
        the folders from the innermost `sglang` one down, inside SGLang; nothing outside it. So a
        result holds for a copy of the tree wherever it sits (the result cache's key, engine/cache.py)."""
        folders = self.parts[:-1]
        if "sglang" not in folders:
            return ()
        return self.parts[len(folders) - 1 - folders[::-1].index("sglang") :]
