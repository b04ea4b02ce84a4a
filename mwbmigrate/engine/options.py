"""A run's options, as every file's transform reads them: what the command line chose and what the
pre-pass read of the whole tree. Plain data (no LibCST): the command line builds them, and a run
whose results all come from the cache keys them without importing a codemod."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from mwbmigrate.analysis.isolation import ProjectCallers
from mwbmigrate.analysis.names import RUNTIME_MODULE, ModuleLocation
from mwbmigrate.analysis.project_classes import ProjectWorkers
from mwbmigrate.analysis.signatures import ProjectSignatures
from mwbmigrate.analysis.target_versions import DEFAULT_TARGET_VERSION, DerivedRelease, at_least, register_release
from mwbmigrate.analysis.tree_facts import OwnWorkerBatchFields, WindowFacts
from mwbmigrate.rules import RULES, Rule, byte_candidate, holds_words_of

if TYPE_CHECKING:
    from mwbmigrate.codemods.base import MigrationCodemod
    from mwbmigrate.engine.import_sorting import ImportSorting

# Set to any non-empty value, codemods see whole modules (no function body left out).
NO_ELISION_ENV = "MWBMIGRATE_NO_ELISION"


DEFAULT_LINE_LENGTH = 88  # black's and ruff's default


@dataclass(frozen=True)
class TransformOptions:
    markers: bool = True
    note_markers: bool = False  # `--markers all`: notes are written into the code too, not only reported
    line_length: int = DEFAULT_LINE_LENGTH  # a marker that would make its line longer goes above its statement
    disabled: frozenset[str] = frozenset()  # codemod codes or names not to run
    selected_reviews: frozenset[str] | None = None
    ignored_reviews: frozenset[str] = frozenset()
    extra_modules: tuple[str, ...] = ()
    project_signatures: ProjectSignatures = field(default_factory=ProjectSignatures)  # pass 2: renamed project-wide
    project_callers: ProjectCallers = field(default_factory=ProjectCallers)  # who calls what takes the old object
    # The project's worker classes across its modules (analysis/project_classes.py), read in the pre-pass.
    project_workers: ProjectWorkers = field(default_factory=ProjectWorkers)
    collapse_compat: bool = False  # rewrite version-gated compatibility code to the new API too
    live_batch: bool = False  # read the live batch at every snapshot the allowlist does not prove, marked
    clear_emptied_batches: bool = False  # req-pool-mirror also clears an emptied batch's metadata (PR 28514)
    target_version: str = DEFAULT_TARGET_VERSION  # 0.5.13: one-shot fields on the batch; 0.5.16: keyword arguments
    # `--target-version WHEEL|DIR`: the target read from that release at run time (its label is target_version).
    derived_release: DerivedRelease | None = None
    # The contract pass only (engine/runner.py): (line, verify's message) where the target still breaks.
    contract_breaks: tuple[tuple[int, str], ...] = ()
    # Of the methods whose keywords a release renamed, those the tree defines itself outside SGLang's
    # modules (engine/runner.py): a call on a receiver nothing types may be the tree's own.
    project_defines: frozenset[str] = frozenset()
    # What breaks a snapshot window's proof anywhere in the tree (analysis/tree_facts.py), from the
    # engine's pre-pass; None: the module is its own tree (stdin, one module migrated alone).
    window_facts: WindowFacts | None = None
    # What the tree's own `ModelWorkerBatch` adds (a fork of SGLang): a kept snapshot holds those fields too.
    own_worker_batch_fields: OwnWorkerBatchFields = field(default_factory=OwnWorkerBatchFields)
    runtime_module: str = RUNTIME_MODULE  # the runtime helpers' module: mwbmigrate.runtime, or a vendored copy
    request_mirror: bool | None = None  # the tree's ScheduleBatch keeps req_pool_indices_cpu; None: no such module here
    elide: bool = True  # leave out the function bodies no codemod can act on (engine/elision.py)
    # The tree's own style (config.configured_line_length, config.project_import_sorting): the line
    # length inserted statements are wrapped to, black's way (None: none is configured, and they keep
    # their one-line form), and its import sorter (None: added imports go after the leading ones, as
    # LibCST puts them).
    wrap_line_length: int | None = None
    import_sorting: ImportSorting | None = None

    def runs(self, codemod: type[MigrationCodemod]) -> bool:
        """Not disabled, and the target is a release the codemod models (django-upgrade's
        `min_version`): from its SINCE up to, not including, its UNTIL."""
        return self._runs(codemod.CODE, codemod.NAME, codemod.SINCE, codemod.UNTIL)

    def runs_rule(self, rule: Rule) -> bool:
        """`runs`, for a rule of the plain-data registry (mwbmigrate/rule_table.py)."""
        return self._runs(rule.code, rule.name, rule.since, rule.until)

    def _runs(self, code: str, name: str, since: str, until: str | None) -> bool:
        if code in self.disabled or name in self.disabled:
            return False
        if self.derived_release is not None:
            register_release(self.derived_release)  # in this process too (a worker of the pool)
        return at_least(self.target_version, since) and (until is None or not at_least(self.target_version, until))

    def candidate(self, data: bytes, path: str) -> bool:
        """The byte prefilter: a codemod that runs for these options holds the words it needs in
        `data` (`rules.holds_words_of`), or the project's facts make one act on the module whatever
        words it holds: a mixin whose worker is defined in another module (analysis/project_classes.py);
        or it is SGLang's `schedule_batch.py`, which class-removal completes whatever it names.
        False proves no codemod can change the module."""
        if byte_candidate(data) and any(
            self.runs_rule(rule) and holds_words_of(rule, data)
            for rule in RULES
            if rule.stage != "contract"  # it marks only what the contract step hands it, on any file
        ):
            return True
        if not path.endswith("schedule_batch.py") and not self.project_workers:
            return False  # (the common case: no location to read)
        location = ModuleLocation(Path(path).as_posix(), self.extra_modules)
        return location.is_schedule_batch_module or bool(self.project_workers.of_module(location.path))
