"""The ordered codemod registry.

Order matters, and each dependency is stated once here:
0. semantic-review marks risky sites while it can still see which names held the old object.
   wild-shapes then marks what forks, plugins and tests do with the old API (version gates,
   fakes, monkeypatches, stubs, copies), also before any rename erases the old names.
1. field-renames reads the old types (annotations, `get_model_worker_batch()` bindings) before the
   renames erase them.
2. worker-batch-calls merges the bound locals into their receiver before parameter-renames picks
   `batch`, so a local is never mistaken for a name collision.
2a. override-moves runs once both have run: worker-batch-calls has turned
   `get_model_worker_batch(seq_lens_cpu_cache=E)` into the write it moves, and the write's receiver
   and the consuming call's argument are now spelled alike. It needs no old name (semantic-review
   already judged the same sites with the same plans, `analysis.override_sites`), and it runs before
   any codemod that expects an override on the line right before its consuming call.
3. isinstance-checks and class-removal must see the class before class-references replaces it.
4. imports runs after every reference has moved, so it knows which imports are still used.
core-runtime runs after the renames (it matches `batch`) and while `ModelWorkerBatch` is still
   imported (its trigger for ForwardBatch.init_new).
req-pool-mirror is independent of the rest.
override-arguments runs last and only with `--target-version 0.5.16`: it turns the finished 0.5.13
   shape into 0.5.16's, so it needs the writes on `batch` (renames, worker-batch-calls), each beside
   its consuming call (override-moves), and every other codemod's edits to those lines done.
keyword-callers is not here: it needs the whole project's renamed signatures (engine pass 2).
"""

from __future__ import annotations

from mwbmigrate.codemods.base import MigrationCodemod
from mwbmigrate.codemods.class_references import ReplaceClassReferences
from mwbmigrate.codemods.class_removal import RemoveOldClass
from mwbmigrate.codemods.core_runtime import MoveCoreOntoRuntime
from mwbmigrate.codemods.docstrings import UpdateDataFlowDocstrings
from mwbmigrate.codemods.field_renames import RenameOldObjectFields
from mwbmigrate.codemods.imports import MigrateImports
from mwbmigrate.codemods.isinstance_checks import DropOldClassInstanceChecks
from mwbmigrate.codemods.keyword_callers import RenameKeywordArguments
from mwbmigrate.codemods.override_arguments import PassOverridesAsArguments
from mwbmigrate.codemods.override_moves import MoveOverridesToTheirForward
from mwbmigrate.codemods.req_pool_mirror import RepairRequestPoolMirror
from mwbmigrate.codemods.parameter_renames import RenameOldObjectParameters
from mwbmigrate.codemods.semantic_review import ReportSemanticRisks
from mwbmigrate.codemods.wild_shapes import ReportWildShapes
from mwbmigrate.codemods.worker_batch_calls import DropWorkerBatchCalls

CODEMODS: tuple[type[MigrationCodemod], ...] = (
    ReportSemanticRisks,
    ReportWildShapes,
    RenameOldObjectFields,
    DropWorkerBatchCalls,
    RenameOldObjectParameters,
    MoveOverridesToTheirForward,
    MoveCoreOntoRuntime,
    DropOldClassInstanceChecks,
    RemoveOldClass,
    ReplaceClassReferences,
    MigrateImports,
    UpdateDataFlowDocstrings,
    RepairRequestPoolMirror,
    PassOverridesAsArguments,
)
SECOND_PASS_CODEMODS: tuple[type[MigrationCodemod], ...] = (RenameKeywordArguments,)
ALL_CODEMODS = CODEMODS + SECOND_PASS_CODEMODS


def codemod_by_key(key: str) -> type[MigrationCodemod] | None:
    for codemod in ALL_CODEMODS:
        if key in (codemod.CODE, codemod.NAME):
            return codemod
    return None
