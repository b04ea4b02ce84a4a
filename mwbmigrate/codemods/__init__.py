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
override-arguments runs last and only for a target from 0.5.16 on: it turns the finished 0.5.13
   shape into 0.5.16's, so it needs the writes on `batch` (renames, worker-batch-calls), each beside
   its consuming call (override-moves), and every other codemod's edits to those lines done.
keyword-callers is not here: it needs the whole project's renamed signatures (engine pass 2).

Each codemod declares what it needs run with it (REQUIRES: its output is only correct, or only
reported, when they run too; `--select`/`--ignore` may not split them), its TRIGGERS (the engine's
prefilter is their union), its REVIEW_CODES and the releases it models (SINCE, UNTIL, BOUNDARIES).
`mwbmigrate.registry.check_registry()` holds the registry to those declarations.
"""

from __future__ import annotations

from mwbmigrate.analysis.target_versions import DEFAULT_TARGET_VERSION, TARGET_VERSIONS
from mwbmigrate.codemods.base import MigrationCodemod
from mwbmigrate.codemods.class_references import ReplaceClassReferences
from mwbmigrate.codemods.class_removal import RemoveOldClass
from mwbmigrate.codemods.contract_breaks import MarkContractBreaks
from mwbmigrate.codemods.core_runtime import MoveCoreOntoRuntime
from mwbmigrate.codemods.coverage_holes import ReportCoverageHoles
from mwbmigrate.codemods.docstrings import UpdateDataFlowDocstrings
from mwbmigrate.codemods.field_renames import RenameOldObjectFields
from mwbmigrate.codemods.imports import MigrateImports
from mwbmigrate.codemods.isinstance_checks import DropOldClassInstanceChecks
from mwbmigrate.codemods.keyword_callers import RenameKeywordArguments
from mwbmigrate.codemods.override_arguments import PassOverridesAsArguments
from mwbmigrate.codemods.override_moves import MoveOverridesToTheirForward
from mwbmigrate.codemods.parameter_renames import RenameOldObjectParameters
from mwbmigrate.codemods.removed_fields import RewriteRemovedFields
from mwbmigrate.codemods.req_pool_mirror import RepairRequestPoolMirror
from mwbmigrate.codemods.semantic_review import ReportSemanticRisks
from mwbmigrate.codemods.wild_shapes import ReportWildShapes
from mwbmigrate.codemods.worker_batch_calls import DropWorkerBatchCalls
from mwbmigrate.codemods.worker_signatures import MatchWorkerCallers

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
    MatchWorkerCallers,  # after override-arguments: a parameter it gave the method is not added twice
    RewriteRemovedFields,
    ReportCoverageHoles,  # last: reports old API every codemod above left unmarked
)
SECOND_PASS_CODEMODS: tuple[type[MigrationCodemod], ...] = (RenameKeywordArguments,)
# After both passes, with --target-version: the breaks the target's contract still shows (engine/runner.py).
CONTRACT_PASS_CODEMODS: tuple[type[MigrationCodemod], ...] = (MarkContractBreaks,)
ALL_CODEMODS = CODEMODS + SECOND_PASS_CODEMODS + CONTRACT_PASS_CODEMODS


def codemod_by_key(key: str) -> type[MigrationCodemod] | None:
    for codemod in ALL_CODEMODS:
        if key in (codemod.CODE, codemod.NAME):
            return codemod
    return None


# The engine's byte prefilter (`rules.byte_candidate`): a module with none of the codemods' TRIGGERS
# is never parsed. The triggers that hold no other are enough (one that holds another is in every file
# the other is); mwbmigrate/rule_table.py holds a copy, checked against this one, for the paths that
# import no codemod.
_TRIGGER_BYTES = tuple(dict.fromkeys(t.encode() for c in CODEMODS + SECOND_PASS_CODEMODS for t in c.TRIGGERS))
PREFILTER_WORDS: tuple[bytes, ...] = tuple(
    word for word in _TRIGGER_BYTES if not any(other != word and other in word for other in _TRIGGER_BYTES)
)


def modelled_targets() -> tuple[str, ...]:
    """One target per distinct output: the default, and every SINCE, UNTIL and BOUNDARIES entry.

    Between two of these no codemod changes what it does, so a test that runs every codemod for
    these targets has run every shape the tool produces.
    """
    found = {DEFAULT_TARGET_VERSION}
    for codemod in ALL_CODEMODS:
        found |= {codemod.SINCE, *codemod.BOUNDARIES} | ({codemod.UNTIL} if codemod.UNTIL else set())
    return tuple(v for v in TARGET_VERSIONS if v in found)
