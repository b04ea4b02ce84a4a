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
3. isinstance-checks and class-removal must see the class before class-references replaces it;
   isinstance-checks runs right after the reports, before any rename erases which names held the
   old object (that decides which branch a test must keep).
4. imports runs after every reference has moved, so it knows which imports are still used.
core-runtime runs after the renames (it matches `batch`) and while `ModelWorkerBatch` is still
   imported (its trigger for ForwardBatch.init_new).
req-pool-mirror is independent of the rest.
override-arguments runs last and only with `--target-version 0.5.16`: it turns the finished 0.5.13
   shape into 0.5.16's, so it needs the writes on `batch` (renames, worker-batch-calls), each beside
   its consuming call (override-moves), and every other codemod's edits to those lines done.
keyword-callers is not here: it needs the whole project's renamed signatures (engine pass 2).

PREREQUISITES says which codemods one needs to run with it (`--select`/`--ignore` may not split them):
its output is only correct, or only reported, when they run too.
"""

from __future__ import annotations

from mwbmigrate.codemods.base import MigrationCodemod
from mwbmigrate.codemods.class_references import ReplaceClassReferences
from mwbmigrate.codemods.class_removal import RemoveOldClass
from mwbmigrate.codemods.core_runtime import MoveCoreOntoRuntime
from mwbmigrate.codemods.coverage_holes import ReportCoverageHoles
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
    DropOldClassInstanceChecks,
    RenameOldObjectFields,
    DropWorkerBatchCalls,
    RenameOldObjectParameters,
    MoveOverridesToTheirForward,
    MoveCoreOntoRuntime,
    RemoveOldClass,
    ReplaceClassReferences,
    MigrateImports,
    UpdateDataFlowDocstrings,
    RepairRequestPoolMirror,
    PassOverridesAsArguments,
    ReportCoverageHoles,  # last: reports old API every codemod above left unmarked
)
SECOND_PASS_CODEMODS: tuple[type[MigrationCodemod], ...] = (RenameKeywordArguments,)
ALL_CODEMODS = CODEMODS + SECOND_PASS_CODEMODS


def codemod_by_key(key: str) -> type[MigrationCodemod] | None:
    for codemod in ALL_CODEMODS:
        if key in (codemod.CODE, codemod.NAME):
            return codemod
    return None


# Those that rewrite old-API sites need the two reports: semantic-review marks the hazards of each
# rewrite, wild-shapes the version-gated code that must not be rewritten blindly (without them a
# rewrite changes behaviour with nothing said).
_REPORTS = (ReportSemanticRisks.CODE, ReportWildShapes.CODE)
PREREQUISITES: dict[str, tuple[str, ...]] = {
    # A local read through the ScheduleBatch must not name a field only the old object had.
    DropWorkerBatchCalls.CODE: (RenameOldObjectFields.CODE, *_REPORTS),
    RenameOldObjectFields.CODE: _REPORTS,
    # In-tree `f(model_worker_batch=...)` callers must follow the renamed parameter.
    RenameOldObjectParameters.CODE: (RenameKeywordArguments.CODE, *_REPORTS),
    RenameKeywordArguments.CODE: _REPORTS,
    # `ScheduleBatch` must be imported where an annotation now names it.
    ReplaceClassReferences.CODE: (MigrateImports.CODE, *_REPORTS),
    DropOldClassInstanceChecks.CODE: _REPORTS,
    MoveOverridesToTheirForward.CODE: _REPORTS,
    MoveCoreOntoRuntime.CODE: _REPORTS,
    PassOverridesAsArguments.CODE: _REPORTS,
    # Deleting the class and `get_model_worker_batch` is only sound when every reference, call,
    # isinstance check and ForwardBatch.init_new moved off them in the same run.
    RemoveOldClass.CODE: (ReplaceClassReferences.CODE, DropWorkerBatchCalls.CODE, DropOldClassInstanceChecks.CODE,
                          RenameOldObjectParameters.CODE, MoveCoreOntoRuntime.CODE, *_REPORTS),
}


def prerequisites(code: str) -> set[str]:
    """Every codemod `code` needs, transitively."""
    needed: set[str] = set()
    pending = list(PREREQUISITES.get(code, ()))
    while pending:
        current = pending.pop()
        if current not in needed:
            needed.add(current)
            pending.extend(PREREQUISITES.get(current, ()))
    return needed


def dependents(codes: frozenset[str]) -> set[str]:
    """Every codemod that needs one of `codes`, transitively (turned off with them by `--ignore`)."""
    return {codemod.CODE for codemod in ALL_CODEMODS if prerequisites(codemod.CODE) & codes}


def split_prerequisites(disabled: frozenset[str]) -> list[str]:
    """One line per codemod that would run without a codemod it needs (empty: the set is sound)."""
    problems = []
    for codemod in ALL_CODEMODS:
        if codemod.CODE in disabled:
            continue
        missing = sorted(prerequisites(codemod.CODE) & disabled)
        if missing:
            names = ", ".join(f"{code} ({codemod_by_key(code).NAME})" for code in missing)
            problems.append(f"{codemod.CODE} ({codemod.NAME}) needs {names}")
    return problems

