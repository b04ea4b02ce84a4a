"""The one registry of codes: every review code (MWB1xx) with what it means, an example and what to
do, beside the codemods' own registry (MWB0xx, `mwbmigrate.codemods`). `mwbmigrate explain CODE`
prints an entry; `valid_codes()` / `is_known_code()` say which keys `--select` / `--ignore` accept.

Adding a review code (tests/test_registry_readme.py fails until all four are done):
1. emit it from a codemod: `self.review(node, "MWB1nn", reason)`;
2. add its row at the end of the right table in README.md (review items, or the one under
   "Review codes added by `wild-shapes`");
3. add a `ReviewCode(...)` to `_CODES` below, in code order:
   - `title`: one line; `meaning`: what changed, or what the tool could not prove, and why it matters;
   - `example_before`: 1-4 lines of old-API code that really gets the marker, run by the test after
     `EXAMPLE_SETUP`'s imports (pass `setup=""` when the example brings its own imports);
   - `example_after`: what `mwbmigrate rewrite` leaves, exactly as it leaves it except that marker
     reasons may be shortened with "…"; the test compares the code and each line's marker codes;
   - `what_to_do`: how to resolve the site by hand; `reported_by`: the codemod names that emit it;
     `target_version="0.5.16"` for a code only `--target-version 0.5.16` produces;
4. check it: `mwbmigrate explain MWB1nn`.
"""

from __future__ import annotations

import textwrap
from dataclasses import dataclass

from mwbmigrate.analysis.target_versions import DEFAULT_TARGET_VERSION
from mwbmigrate.rules import RULES, rule_by_key

# What every example runs after (not printed by `explain`: an example reads as part of a module that
# imports SGLang's classes, which is what makes its names SGLang's).
EXAMPLE_SETUP = (
    "from dataclasses import dataclass\n"
    "from typing import Union\n"
    "\n"
    "from sglang.srt.managers.schedule_batch import ModelWorkerBatch, ScheduleBatch\n"
    "from sglang.srt.model_executor.forward_batch_info import CaptureHiddenMode, ForwardBatch\n"
    "\n"
    "\n"
)


HAZARD = "hazard"  # behaviour may differ, or the code breaks on the target: a marker in the code
NOTE = "note"  # nothing on that line behaves differently: the report only (`--markers all` writes it too)
KINDS = (HAZARD, NOTE)


@dataclass(frozen=True)
class ReviewCode:
    code: str
    title: str  # one line
    meaning: str
    example_before: str
    example_after: str  # what the tool leaves and marks
    what_to_do: str
    reported_by: tuple[str, ...]  # codemod names
    target_version: str = DEFAULT_TARGET_VERSION  # the --target-version that produces the example
    setup: str = EXAMPLE_SETUP
    collapse_compat: bool = False  # the example is what `--collapse-compat` produces
    kind: str = HAZARD
    live_batch: bool = False  # the example is what `--live-batch` produces
    contract: bool = False  # the example needs the target release's contract check (its wheel)


def _code(
    code: str,
    title: str,
    meaning: str,
    before: str,
    after: str,
    what_to_do: str,
    *reported_by: str,
    target_version: str = DEFAULT_TARGET_VERSION,
    setup: str = EXAMPLE_SETUP,
    collapse_compat: bool = False,
    kind: str = HAZARD,
    live_batch: bool = False,
    contract: bool = False,
) -> ReviewCode:
    # Examples are written indented inside the call; the registry keeps them flush left.
    return ReviewCode(
        code,
        title,
        " ".join(meaning.split()),
        textwrap.dedent(before).strip("\n") + "\n",
        textwrap.dedent(after).strip("\n") + "\n",
        " ".join(what_to_do.split()),
        reported_by,
        target_version,
        setup,
        collapse_compat,
        kind,
        live_batch,
        contract,
    )


_CODES = (
    _code(
        "MWB101",
        "`get_model_worker_batch()` kept: the call has no translation, or its name does not always hold the snapshot",
        """The call is not removed. It takes arguments other than the one override argument
        (`seq_lens_cpu_cache`), which have no translation; or, with `--live-batch`, the name bound to
        it is also bound to something that is not the batch, is a parameter, is both the receiver and
        the result, or is bound from more than one receiver, so reading the batch there would change
        what it holds. Every later use of the name that still holds the old object is marked too.""",
        """
        def _step(self, batch):
            mwb = batch.get_model_worker_batch(self.cache, self.extra)
            return self.worker.forward_batch_generation(mwb)
        """,
        """
        def _step(self, batch):
            mwb = batch.get_model_worker_batch(self.cache, self.extra)  # mwbmigrate: MWB101 `get_model_worker_batch()` kept: `get_model_worker_batch` called with arguments other than `seq_lens_cpu_cache`
            return self.worker.forward_batch_generation(mwb)  # mwbmigrate: MWB101 `mwb` still holds the old object: its `get_model_worker_batch()` was kept
        """,
        """Decide what the extra arguments meant for the forward, set that on the batch (or pass it to
        the worker), then pass the batch and delete the call. 0.5.13 has no `get_model_worker_batch`.""",
        "worker-batch-calls",
        live_batch=True,
    ),
    _code(
        "MWB102",
        "old-object parameter renamed to `schedule_batch`, or not renamed, because `batch` is taken",
        """The parameter holding the old object is normally renamed `batch`, as upstream did. The function
        already binds or reads `batch`, so it became `schedule_batch`; when that is taken too, or the
        function also binds the old name by `def`, `class` or `import`, nothing is renamed.""",
        """
        def _draft(self, model_worker_batch):
            batch = model_worker_batch.reqs
            return self.run(model_worker_batch, batch)
        """,
        """
        def _draft(self, schedule_batch):  # mwbmigrate: MWB102 `model_worker_batch` renamed to `schedule_batch`: `batch` is already bound here
            batch = schedule_batch.reqs
            return self.run(schedule_batch, batch)
        """,
        """Nothing is broken: the code works as it is. To match upstream's naming, rename the other local
        `batch` and then the parameter by hand; keyword callers (`f(schedule_batch=...)`) follow.""",
        "parameter-renames",
    ),
    _code(
        "MWB103",
        "a one-shot override not followed by exactly one consuming forward in the function",
        """On the old object `capture_hidden_mode`, `seq_lens_cpu_cache` and
        `return_hidden_states_before_norm` were set on a throw-away snapshot. In 0.5.13 they live on the
        long-lived `ScheduleBatch` and the next `ForwardBatch.init_new` consumes and resets them. Here no
        forward (`ForwardBatch.init_new`, `forward_batch_generation`) follows in the function, or more
        than one does: the override would leak into a later forward, or apply to the first one only.""",
        """
        def _step(self, batch):
            mwb = batch.get_model_worker_batch()
            mwb.capture_hidden_mode = CaptureHiddenMode.LAST
            return self.prepare(mwb)
        """,
        """
        def _step(self, batch):
            batch.capture_hidden_mode = CaptureHiddenMode.LAST  # mwbmigrate: MWB103 `capture_hidden_mode` override is not consumed by a forward in this function; …  # mwbmigrate: MWB141 `mwb` now reads the live `batch`, not proven the same: …
            return self.prepare(batch)
        """,
        """Set the override right before the call that consumes it (in the function that calls
        `ForwardBatch.init_new` / `forward_batch_generation`), and set it again before each further
        forward that needs it. If nothing consumes it, delete it.""",
        "semantic-review",
        live_batch=True,
    ),
    _code(
        "MWB104",
        "a read of a value the old object derived (`capture_hidden_mode`, an overridden `seq_lens_cpu`)",
        """`get_model_worker_batch()` computed `capture_hidden_mode` (from the spec info and the
        requests), put an overriding `seq_lens_cpu_cache` into `seq_lens_cpu`, and filled in
        `sampling_info.grammars` (which 0.5.13's `init_new` fills in at the forward: a read or a write
        of it before the forward is reported too). `ScheduleBatch` holds
        neither: its `capture_hidden_mode` is None unless just set, and its `seq_lens_cpu` is the
        scheduler's. The derived values exist on the `ForwardBatch` that `init_new` builds.""",
        """
        def _step(self, model_worker_batch, model_runner):
            assert model_worker_batch.capture_hidden_mode == CaptureHiddenMode.FULL
            return model_runner.forward(model_worker_batch)
        """,
        """
        def _step(self, batch, model_runner):
            assert batch.capture_hidden_mode == CaptureHiddenMode.FULL  # mwbmigrate: MWB104 `capture_hidden_mode` was derived on the old object; … read forward_batch.capture_hidden_mode after init_new
            return model_runner.forward(batch)
        """,
        """Read the value from the forward batch after `forward_batch = ForwardBatch.init_new(batch,
        model_runner)`: `forward_batch.capture_hidden_mode`, `forward_batch.seq_lens_cpu`.""",
        "semantic-review",
    ),
    _code(
        "MWB105",
        "a read of `extend_seq_lens` / `extend_prefix_lens` / `extend_logprob_start_lens`, ungated now",
        """The old object set these to None in decode and idle batches; `ScheduleBatch.extend_lens` and
        `prefix_lens` are not gated on the forward mode, so they keep the last extend's values. An `is
        None` test on them no longer tells decode from extend.""",
        """
        def _step(self, model_worker_batch):
            if model_worker_batch.extend_seq_lens is None:
                return []
            return model_worker_batch.extend_seq_lens
        """,
        """
        def _step(self, batch):
            if batch.extend_lens is None:  # mwbmigrate: MWB105 `extend_seq_lens` was None in decode/idle on the old object; ScheduleBatch's field is not gated
                return []
            return batch.extend_lens  # mwbmigrate: MWB105 `extend_seq_lens` was None in decode/idle on the old object; ScheduleBatch's field is not gated
        """,
        """Gate on the mode instead: `if batch.forward_mode.is_decode_or_idle():` where the code tested
        `is None`, and read the lengths only for extend batches (or from the `ForwardBatch`, which
        keeps the gating).""",
        "semantic-review",
    ),
    _code(
        "MWB106",
        "a write to the former old object now mutates the scheduler's long-lived batch",
        """Writes to the snapshot were thrown away after the forward. The same write on `ScheduleBatch`
        stays: the scheduler, the next forward, and the overlap thread all see it. A write through a
        local alias, a tuple target or `setattr` with a literal name counts, and so does the old object
        handed to a helper of the tree that writes the parameter it takes there.""",
        """
        def _step(self, model_worker_batch):
            model_worker_batch.input_ids = self.draft_ids
            return self.worker.forward_batch_generation(model_worker_batch)
        """,
        """
        def _step(self, batch):
            batch.input_ids = self.draft_ids  # mwbmigrate: MWB106 write to `input_ids` now mutates the scheduler's ScheduleBatch (it hit a throw-away copy before)
            return self.worker.forward_batch_generation(batch)
        """,
        """Check whether later code relies on the old value. If it does, save it and restore it after the
        forward (`try`/`finally`), or set the value on the `ForwardBatch` after `init_new` instead.""",
        "semantic-review",
    ),
    _code(
        "MWB190",
        "the former old object kept past the forward, or compared by identity",
        """A worker got a fresh `ModelWorkerBatch` at every forward: one it stored (in an attribute,
        a container, a tuple it queued, a `partial`, a thread's arguments, or a closure or lambda it
        kept or returned) kept the values it had then, and one compared by identity was a new object
        each time. The parameter now holds the scheduler's long-lived `ScheduleBatch`, the same object at
        every forward: a later read of the stored one sees the batch's later changes, and an identity
        test that told forwards apart is true every time.""",
        """
        class TracingWorker:
            def forward_batch_generation(self, model_worker_batch: ModelWorkerBatch):
                self.last = model_worker_batch
                return self.worker.forward_batch_generation(model_worker_batch)
        """,
        """
        class TracingWorker:
            def forward_batch_generation(self, batch: ScheduleBatch):  # mwbmigrate: MWB113 public parameter renamed …
                self.last = batch  # mwbmigrate: MWB190 the parameter that held the old object is kept past the forward: …
                return self.worker.forward_batch_generation(batch)
        """,
        """Store `worker_batch_snapshot(batch)`, the old object, where later code reads what this
        forward saw; tell forwards apart by a counter or a field, not by the batch's identity.""",
        "semantic-review",
    ),
    _code(
        "MWB107",
        "`seq_lens_cpu_cache` used as a persistent cache; it is a one-shot override now",
        """`get_model_worker_batch(seq_lens_cpu_cache=batch.seq_lens_cpu_cache)`, or a write to
        `batch.seq_lens_cpu_cache` beside the old object, treats the field as a cache that survives
        forwards. In 0.5.13 the next `ForwardBatch.init_new` consumes it and resets it to None.""",
        """
        def _verify(self, batch):
            mwb = batch.get_model_worker_batch(seq_lens_cpu_cache=batch.seq_lens_cpu_cache)
            return self.worker.forward_batch_generation(mwb)
        """,
        """
        def _verify(self, batch):
            batch.seq_lens_cpu_cache = batch.seq_lens_cpu_cache  # mwbmigrate: MWB116 `get_model_worker_batch(seq_lens_cpu_cache=...)` not moved next to its consuming call: …  # mwbmigrate: MWB107 `seq_lens_cpu_cache` reused across forwards; in 0.5.13 it is a one-shot override consumed by init_new  # mwbmigrate: MWB141 `mwb` now reads the live `batch`, not proven the same: …
            return self.worker.forward_batch_generation(batch)
        """,
        """Keep the cache somewhere of your own (an attribute of the worker) and set
        `batch.seq_lens_cpu_cache` from it right before each forward that should use it.""",
        "semantic-review",
        live_batch=True,
    ),
    _code(
        "MWB108",
        "a keyword caller of a function whose parameter was renamed two different ways",
        """The definitions the call may reach rename `model_worker_batch` differently: SGLang's own
        method (`draft`, `forward_batch_generation`, …) takes `batch=` now, while the project's method
        of the same name became `schedule_batch` because `batch` was taken. The receiver does not say
        which one runs, so the keyword cannot be renamed safely.""",
        """
        class Drafter:
            def draft(self, model_worker_batch, batch): ...
        def _call(worker, mwb):
            return worker.draft(model_worker_batch=mwb)
        """,
        """
        class Drafter:
            def draft(self, schedule_batch, batch): ...  # mwbmigrate: MWB102 `model_worker_batch` renamed to `schedule_batch`: …  # mwbmigrate: MWB113 public parameter renamed `model_worker_batch` -> `schedule_batch`: …
        def _call(worker, mwb):
            return worker.draft(model_worker_batch=mwb)  # mwbmigrate: MWB108 `draft` renames `model_worker_batch` differently in different places
        """,
        """Find which function the call reaches and rename the keyword to its new parameter name
        (`batch=` or `schedule_batch=`).""",
        "keyword-callers",
    ),
    _code(
        "MWB109",
        "a write to `lora_ids` / `dllm_block_offsets`, which are no `ScheduleBatch` fields",
        """The old object computed `lora_ids` and `dllm_block_offsets` from the requests; reads are
        rewritten to that computation (`[req.lora_id for req in batch.reqs]`), but a write has nowhere
        to go: `ScheduleBatch` has no such field, and nothing reads one.""",
        """
        def _step(self, model_worker_batch):
            model_worker_batch.lora_ids = [None]
            return self.worker.forward_batch_generation(model_worker_batch)
        """,
        """
        def _step(self, batch):
            batch.lora_ids = [None]  # mwbmigrate: MWB106 write to `lora_ids` now mutates …  # mwbmigrate: MWB109 `lora_ids` is no ScheduleBatch field; it was computed from `reqs`
            return self.worker.forward_batch_generation(batch)
        """,
        """Set the per-request value instead (`req.lora_id` / `req.dllm_block_offset` for each request
        in `batch.reqs`), or drop the write.""",
        "field-renames",
    ),
    _code(
        "MWB110",
        "an `isinstance(..., ModelWorkerBatch)` that was always false, outside a plain `if` test",
        """The tested value only ever held `ScheduleBatch`es (it is annotated so), so the test was always
        false. A plain `if isinstance(x, ModelWorkerBatch):` loses its branch (its `else` is kept);
        anywhere else (an `assert`, a boolean expression, a conditional expression) the test is
        replaced by `False`, which keeps the behaviour but leaves an expression to tidy.""",
        """
        def _step(self, batch: ScheduleBatch):
            assert not isinstance(batch, ModelWorkerBatch)
            return self.run(batch)
        """,
        """
        def _step(self, batch: ScheduleBatch):
            assert not False  # mwbmigrate: MWB110 `isinstance(batch, ModelWorkerBatch)` was always false (`batch` is a ScheduleBatch): replaced by `False`
            return self.run(batch)
        """,
        """Simplify the expression by hand (here: delete the `assert`; elsewhere drop the branch or the
        operand the `False` decides).""",
        "isinstance-checks",
    ),
    _code(
        "MWB111",
        "`ModelWorkerBatch(...)` built directly: a `ScheduleBatch` cannot be built from those fields",
        """A `ScheduleBatch` is built by the scheduler from requests, pools and allocators, not from the
        snapshot's fields, so the construction (usually a test fixture or fake) is left as it is, and so
        is the import it needs.""",
        """
        def _build(reqs, seq_lens):
            return ModelWorkerBatch(reqs=reqs, seq_lens=seq_lens, forward_mode=None)
        """,
        """
        def _build(reqs, seq_lens):
            return ModelWorkerBatch(reqs=reqs, seq_lens=seq_lens, forward_mode=None)  # mwbmigrate: MWB111 `ModelWorkerBatch(...)` built directly: a ScheduleBatch cannot be built from these fields
        """,
        """Build what the code under test takes now: a `ScheduleBatch` (`ScheduleBatch.init_new(...)`,
        or a test double with the fields it reads), then drop the `ModelWorkerBatch` import.""",
        "class-references",
        "imports",
    ),
    _code(
        "MWB112",
        "the former old object passed where a `ForwardBatch` is expected",
        """`ModelRunner.sample` and `compute_logprobs_only` take a `ForwardBatch` (second positional
        argument or `forward_batch=`). The old object happened to have the fields they read; the live
        `ScheduleBatch` does not, or has them with other meanings.""",
        """
        def _sample(self, model_worker_batch, logits_output):
            return self.model_runner.sample(logits_output, model_worker_batch)
        """,
        """
        def _sample(self, batch, logits_output):
            return self.model_runner.sample(logits_output, batch)  # mwbmigrate: MWB112 the former old object is passed to `sample`, which expects a ForwardBatch
        """,
        """Pass the forward batch built for this forward (`ForwardBatch.init_new(batch, model_runner)`,
        usually already at hand as `forward_batch`).""",
        "semantic-review",
    ),
    _code(
        "MWB113",
        "a public function's parameter was renamed: keyword callers outside the tree break",
        """`model_worker_batch` became `batch` (or `schedule_batch`) in a function whose name does not
        start with `_`. Keyword callers inside the tree are rewritten (keyword-callers); code outside
        it that passes `model_worker_batch=` now gets a `TypeError`.""",
        """
        def compute(model_worker_batch):
            return model_worker_batch.seq_lens
        """,
        """
        def compute(batch):  # mwbmigrate: MWB113 public parameter renamed `model_worker_batch` -> `batch`: update keyword callers outside this tree
            return batch.seq_lens
        """,
        """Update keyword callers in other repositories, or keep a compatibility shim that also accepts
        `model_worker_batch=` for a release.""",
        "parameter-renames",
        kind=NOTE,
    ),
    _code(
        "MWB114",
        "a field only the old object had read on a parameter typed `Union[ScheduleBatch, ModelWorkerBatch]`",
        """The annotation collapses to `ScheduleBatch`, but a field only the old object had
        (`extend_seq_lens`, `extend_prefix_lens`, `lora_ids`, …) cannot be renamed: the value may have
        been a `ScheduleBatch` already, where the read would be wrong either way.""",
        """
        def _lens(self, batch: Union[ScheduleBatch, ModelWorkerBatch]):
            return batch.extend_seq_lens
        """,
        """
        def _lens(self, batch: ScheduleBatch):
            return batch.extend_seq_lens  # mwbmigrate: MWB114 `extend_seq_lens` exists only on the old object, but `batch` may be a ScheduleBatch (its field is `extend_lens`)
        """,
        """Read the `ScheduleBatch` field named in the marker (`batch.extend_lens`), and check the
        decode/idle gating (see MWB105).""",
        "semantic-review",
    ),
    _code(
        "MWB115",
        "`model_worker_batch=` passed to a function not known to be renamed",
        """The callee is not defined in this tree and is not one of SGLang's functions that upstream
        renamed, so whether its parameter is still called `model_worker_batch` is unknown.""",
        """
        def _run(self, batch):
            return self.helper(model_worker_batch=batch)
        """,
        """
        def _run(self, batch):
            return self.helper(model_worker_batch=batch)  # mwbmigrate: MWB115 `model_worker_batch=` passed to `helper`, not known to be renamed here: …
        """,
        """Look up the callee. If it is SGLang's (0.5.13 or later) or was migrated, pass `batch=`;
        otherwise leave it.""",
        "keyword-callers",
    ),
    _code(
        "MWB116",
        "a one-shot override that override-moves could not move next to its consuming forward",
        """Exactly one forward consumes the override, as upstream expects, but something between the
        write and that call makes moving the write unsafe to prove: the batch is handed to another
        call (which may read or consume it), the field is read or written, the batch or a name the
        value reads is rebound, the value calls a function, or the call is in another block. The
        marker gives the reason.""",
        """
        def _step(self, batch):
            mwb = batch.get_model_worker_batch()
            mwb.capture_hidden_mode = CaptureHiddenMode.LAST
            self.log(mwb)
            return self.worker.forward_batch_generation(mwb)
        """,
        """
        def _step(self, batch):
            batch.capture_hidden_mode = CaptureHiddenMode.LAST  # mwbmigrate: MWB116 `capture_hidden_mode` override not moved next to its consuming call: the batch is handed to a call in between, …  # mwbmigrate: MWB141 `mwb` now reads the live `batch`, not proven the same: …
            self.log(batch)
            return self.worker.forward_batch_generation(batch)
        """,
        """Check the statements in between (the marker names the hazard). If none of them reads or
        consumes the override, move the write to the line right before the consuming call.""",
        "semantic-review",
        live_batch=True,
    ),
    _code(
        "MWB120",
        "a feature check on `get_model_worker_batch`, and the old API in the code it gates: kept",
        """`hasattr(batch, "get_model_worker_batch")` (or `getattr`, or a flag computed from one) means
        the code already runs on both APIs; rewriting the gated code would break its legacy branch. The
        gate's function (or, at module level, the statement) is left as it is unless `--collapse-compat`
        is given; the rest of the file migrates.""",
        """
        def _step(self, batch):
            if hasattr(batch, "get_model_worker_batch"):
                batch = batch.get_model_worker_batch()
            return self.worker.forward_batch_generation(batch)
        """,
        """
        def _step(self, batch):
            if hasattr(batch, "get_model_worker_batch"):  # mwbmigrate: MWB120 feature check on `get_model_worker_batch`: both APIs kept; `--collapse-compat` …
                batch = batch.get_model_worker_batch()
            return self.worker.forward_batch_generation(batch)
        """,
        """Nothing, while you support both SGLang versions. Once 0.5.13 is the minimum, delete the legacy
        branch, or run `mwbmigrate rewrite --collapse-compat` to rewrite the file to the new API only.""",
        "wild-shapes",
    ),
    _code(
        "MWB121",
        "`ModelWorkerBatch` imported under `try/except ImportError`, and each use of it: kept",
        """A guarded import is compatibility code for both APIs: on 0.5.13 the import fails and the
        fallback runs. The import and every use of the name are kept as they are.""",
        """
        try:
            from sglang.srt.managers.schedule_batch import ModelWorkerBatch
        except ImportError:
            ModelWorkerBatch = None
        """,
        """
        try:
            from sglang.srt.managers.schedule_batch import ModelWorkerBatch  # mwbmigrate: MWB121 `ModelWorkerBatch` imported under try/except ImportError: both APIs kept; …
        except ImportError:
            ModelWorkerBatch = None  # mwbmigrate: MWB121 uses the ImportError-guarded `ModelWorkerBatch`: kept
        """,
        """Nothing, while you support both SGLang versions. Once 0.5.13 is the minimum, delete the guarded
        import and the code that uses it, or run `mwbmigrate rewrite --collapse-compat`.""",
        "wild-shapes",
        setup="",
    ),
    _code(
        "MWB122",
        "an `if` on an environment variable or SGLang's version that chooses the old API: kept",
        """A switch such as `os.environ.get("LEGACY_API")` or a comparison with `sglang.__version__`
        selects the old API at run time (one side uses it, the other does not); the code already runs on
        both APIs and is only reported (unless `--collapse-compat`). A debug or feature flag whose branch
        merely uses the old object chooses no API and is migrated like any code.""",
        """
        def _step(self, batch):
            if os.environ.get("SGLANG_LEGACY_BATCH"):
                return self.worker.forward_batch_generation(batch.get_model_worker_batch())
            return self.worker.forward_batch_generation(batch)
        """,
        """
        def _step(self, batch):
            if os.environ.get("SGLANG_LEGACY_BATCH"):  # mwbmigrate: MWB122 old API chosen by an environment variable or version switch: both APIs kept; …
                return self.worker.forward_batch_generation(batch.get_model_worker_batch())
            return self.worker.forward_batch_generation(batch)
        """,
        """Nothing, while you support both SGLang versions. Once 0.5.13 is the minimum, delete the switch
        and its legacy branch, or run `mwbmigrate rewrite --collapse-compat`.""",
        "wild-shapes",
        setup="import os\n\n" + EXAMPLE_SETUP,
    ),
    _code(
        "MWB123",
        "a class other than SGLang's `ScheduleBatch` defines `get_model_worker_batch`",
        """An adapter, a test fake or a `ScheduleBatch` subclass defines its own
        `get_model_worker_batch`. 0.5.13 neither has nor calls the method, so the definition is dead
        code after the migration, and calls on this class are kept (they are not SGLang's: MWB129).""",
        """
        class FakeBatch:
            def get_model_worker_batch(self):
                return self
        """,
        """
        class FakeBatch:
            def get_model_worker_batch(self):  # mwbmigrate: MWB123 `FakeBatch.get_model_worker_batch` returns self (a fake): 0.5.13 never calls it; …
                return self
        """,
        """Move what the method computes to where the batch is consumed (or into the fake's fields), make
        callers pass the object itself, then delete the method.""",
        "wild-shapes",
    ),
    _code(
        "MWB124",
        "`get_model_worker_batch` assigned at run time (a lambda, `setattr`)",
        """Code installs a `get_model_worker_batch` on an object at run time (often a test making a
        batch return a fake). 0.5.13 callers never call it, so the assignment no longer affects
        anything.""",
        """
        def _install(batch):
            batch.get_model_worker_batch = lambda: batch
        """,
        """
        def _install(batch):
            batch.get_model_worker_batch = lambda: batch  # mwbmigrate: MWB124 `get_model_worker_batch` assigned a lambda at run time: 0.5.13 callers never call it
        """,
        """Delete the assignment; hand the code the object the lambda returned directly.""",
        "wild-shapes",
    ),
    _code(
        "MWB125",
        "a method replaced at run time by a function that takes the old object",
        """A monkeypatch such as `TpModelWorker.forward_batch_generation = _traced`. The wrapper's
        parameter is renamed like any other, but from 0.5.13 on the wrapper receives the live
        `ScheduleBatch`, passed as `batch=` by keyword callers; anything it does to its argument now
        reaches the scheduler's batch.""",
        """
        def _traced(self, model_worker_batch, *args, **kwargs):
            return _original(self, model_worker_batch, *args, **kwargs)
        TpModelWorker.forward_batch_generation = _traced
        """,
        """
        def _traced(self, batch, *args, **kwargs):
            return _original(self, batch, *args, **kwargs)
        TpModelWorker.forward_batch_generation = _traced  # mwbmigrate: MWB125 `TpModelWorker.forward_batch_generation` replaced at run time by `_traced`, which takes the old object: …
        """,
        """Check that the replacement accepts `batch` (positional and keyword) and neither writes to it
        nor keeps it beyond the call.""",
        "wild-shapes",
        setup=EXAMPLE_SETUP + "from sglang.srt.managers.tp_worker import TpModelWorker\n\n\n",
    ),
    _code(
        "MWB126",
        'the string key `"model_worker_batch"`: SGLang 0.5.13 passes the batch as `batch`',
        """Strings are never rewritten. A wrapper that looks the argument up as
        `kwargs["model_worker_batch"]`, or a config or log key of that name, no longer finds it.""",
        """
        def _traced(self, *args, **kwargs):
            mwb = kwargs.get("model_worker_batch")
            return mwb
        """,
        """
        def _traced(self, *args, **kwargs):
            mwb = kwargs.get("model_worker_batch")  # mwbmigrate: MWB126 string key "model_worker_batch": SGLang 0.5.13 passes and names it `batch`; strings are never rewritten
            return mwb
        """,
        """Use the key `"batch"` (keep both while you support both versions).""",
        "wild-shapes",
    ),
    _code(
        "MWB127",
        "a stub of SGLang's `schedule_batch` module",
        """Tests stub `sglang.srt.managers.schedule_batch` (`sys.modules[...] = ...`, `ModuleType`, `stub.
        ModelWorkerBatch = ...`). Migrated code imports `ScheduleBatch` from it and never
        `ModelWorkerBatch`, so the stub may lack what the code needs now.""",
        """
        sys.modules["sglang.srt.managers.schedule_batch"] = types.ModuleType("stub")
        """,
        """
        sys.modules["sglang.srt.managers.schedule_batch"] = types.ModuleType("stub")  # mwbmigrate: MWB127 stub of SGLang's schedule_batch module: 0.5.13 code imports ScheduleBatch from it, never ModelWorkerBatch
        """,
        """Give the stub a `ScheduleBatch` and drop its `ModelWorkerBatch`.""",
        "wild-shapes",
        setup="import sys\nimport types\n\n" + EXAMPLE_SETUP,
    ),
    _code(
        "MWB128",
        "a mock standing in for `get_model_worker_batch`, or specced on the old class",
        """`batch.get_model_worker_batch.return_value = fake`, `MagicMock(spec=ModelWorkerBatch)`,
        `patch.object(..., "get_model_worker_batch")`: 0.5.13 code never calls the method, so the mock
        is never used and the code under test receives the batch itself.""",
        """
        def test_step(batch, fake):
            batch.get_model_worker_batch.return_value = fake
        """,
        """
        def test_step(batch, fake):
            batch.get_model_worker_batch.return_value = fake  # mwbmigrate: MWB128 mock of `get_model_worker_batch` (`.return_value`): 0.5.13 code never calls it
        """,
        """Hand the code under test the batch it should see (configure `batch` itself), and delete the
        mock and any assertion on its calls.""",
        "wild-shapes",
    ),
    _code(
        "MWB129",
        "`get_model_worker_batch()` on an object whose class, in the same module, defines its own: kept",
        """The call reaches the module's own method (MWB123), not SGLang's, so it is not removed, and the
        name it binds is not merged into the receiver.""",
        """
        class PaddedBatch(ScheduleBatch):
            def get_model_worker_batch(self): ...
            def _run(self, worker):
                return worker.forward_batch_generation(self.get_model_worker_batch())
        """,
        """
        class PaddedBatch(ScheduleBatch):
            def get_model_worker_batch(self): ...  # mwbmigrate: MWB123 `PaddedBatch` subclasses ScheduleBatch and overrides `get_model_worker_batch`, …
            def _run(self, worker):
                return worker.forward_batch_generation(self.get_model_worker_batch())  # mwbmigrate: MWB129 `self.get_model_worker_batch()` calls `PaddedBatch`'s own method, not SGLang's: kept
        """,
        """Resolve the class's method first (MWB123); then replace the call with what the worker should
        receive, usually the object itself.""",
        "wild-shapes",
    ),
    _code(
        "MWB130",
        "`ModelWorkerBatch(...)` keywords that have no `ScheduleBatch` field of that name",
        """Accompanies MWB111: the marker lists each keyword of the construction with no field of the
        same name on `ScheduleBatch` and what became of it (`extend_seq_lens` → `extend_lens`,
        `lora_ids` computed from the requests, `bid` gone, `token_type_ids` removed in 0.5.13, …).""",
        """
        def _build(reqs):
            return ModelWorkerBatch(bid=0, reqs=reqs, extend_seq_lens=[3])
        """,
        """
        def _build(reqs):
            return ModelWorkerBatch(bid=0, reqs=reqs, extend_seq_lens=[3])  # mwbmigrate: MWB130 keywords with no ScheduleBatch field of that name: bid (gone), extend_seq_lens (ScheduleBatch.extend_lens)  # mwbmigrate: MWB111 `ModelWorkerBatch(...)` built directly: …
        """,
        """When you replace the construction (MWB111), map each listed keyword as the marker says, or
        drop it.""",
        "wild-shapes",
    ),
    _code(
        "MWB131",
        "a copy or serialisation of the former old object",
        """`copy.copy`, `copy.deepcopy`, `dataclasses.replace`, `vars`, `pickle.dumps`, … of what was a
        per-forward snapshot now copies or serialises the scheduler's live `ScheduleBatch`, with its
        pools, allocators and requests: slow, large, or shared state where a copy was meant.""",
        """
        def _step(self, batch):
            mwb = batch.get_model_worker_batch()
            self.saved = copy.copy(mwb)
            return self.worker.forward_batch_generation(mwb)
        """,
        """
        def _step(self, batch):
            self.saved = copy.copy(batch)  # mwbmigrate: MWB131 `copy.copy` of the former old object now copies or serialises the live ScheduleBatch (pools, allocators, requests), …  # mwbmigrate: MWB141 `mwb` now reads the live `batch`, not proven the same: …
            return self.worker.forward_batch_generation(batch)
        """,
        """Copy only the fields you need (`seq_lens.clone()`, `list(batch.reqs)`, …), or the
        `ForwardBatch` built for the forward.""",
        "wild-shapes",
        setup=EXAMPLE_SETUP.replace("from dataclasses", "import copy\nfrom dataclasses"),
        live_batch=True,
    ),
    _code(
        "MWB132",
        "a field or attribute typed with the old class: it will hold the live batch",
        """The annotation becomes `ScheduleBatch`, so the record now keeps the scheduler's live batch,
        which keeps changing after the forward, where it kept a per-forward snapshot; copies and
        pickles of the record now copy the whole batch.""",
        """
        @dataclass
        class Record:
            batch: ModelWorkerBatch
        """,
        """
        @dataclass
        class Record:
            batch: ScheduleBatch  # mwbmigrate: MWB132 field typed with the old class: it will hold the scheduler's live ScheduleBatch, not a per-forward copy …
        """,
        """Store what the record needs at that moment (copies of the fields, or the `ForwardBatch`), not
        the batch itself.""",
        "wild-shapes",
    ),
    _code(
        "MWB133",
        "a run-time type test, registration or key on the old class that would match `ScheduleBatch` now",
        """`type(x) is ModelWorkerBatch`, `issubclass`, dispatch registrations, dict keys and attribute
        reads of the class: rewritten to `ScheduleBatch` they match the batch, which the old test never
        did; left alone they name a class 0.5.13 does not have.""",
        """
        def _is_old(obj):
            return type(obj) is ModelWorkerBatch
        """,
        """
        def _is_old(obj):
            return type(obj) is ScheduleBatch  # mwbmigrate: MWB133 exact type test against `ModelWorkerBatch` now tests against ScheduleBatch, …
        """,
        """Decide what the test should mean on 0.5.13 (usually: it is always false), and simplify the
        code by hand.""",
        "wild-shapes",
    ),
    _code(
        "MWB134",
        "`model_worker_batch` bound by something other than `get_model_worker_batch()`: kept",
        """A name `model_worker_batch` bound by unpacking, a loop, a helper's return value, or an
        attribute of that name, is not provably SGLang's old object, so it is not renamed or merged;
        each use is marked.""",
        """
        def _step(self, batch):
            model_worker_batch, step = self.prepare(batch)
            return self.worker.forward_batch_generation(model_worker_batch)
        """,
        """
        def _step(self, batch):
            model_worker_batch, step = self.prepare(batch)  # mwbmigrate: MWB134 `model_worker_batch` is bound by tuple unpacking: not renamed, kept
            return self.worker.forward_batch_generation(model_worker_batch)  # mwbmigrate: MWB134 `model_worker_batch` kept: not merged into a receiver (see where it is bound)
        """,
        """Check what the name holds. If it is the batch, rename it to `batch` (or pass the batch
        directly) and migrate the helper that produced it.""",
        "wild-shapes",
        live_batch=True,
    ),
    _code(
        "MWB135",
        "`get_model_worker_batch()` whose result is unpacked, stored in an attribute, or called on a non-name receiver",
        """Only `x = name.get_model_worker_batch()` is tracked and merged. On `self.cur_batch`, into
        `self.last`, or unpacked with other values, the call is kept (or only inlined), and the
        result's uses are not migrated.""",
        """
        def _step(self):
            mwb = self.cur_batch.get_model_worker_batch()
            return self.worker.forward_batch_generation(mwb)
        """,
        """
        def _step(self):
            mwb = self.cur_batch.get_model_worker_batch()  # mwbmigrate: MWB135 `get_model_worker_batch()` on `self.cur_batch`, not a plain name: kept; `mwb` is not merged into the receiver
            return self.worker.forward_batch_generation(mwb)
        """,
        """Bind the receiver to a local first (`batch = self.cur_batch`) and run the tool again, or
        replace the call with its receiver by hand and migrate the uses.""",
        "wild-shapes",
        live_batch=True,
    ),
    _code(
        "MWB136",
        "a read of an attribute of the old object that `ScheduleBatch` does not have: AttributeError",
        """`bid` and `launch_done` (older versions' fields) and the four fields removed in 0.5.13
        (`token_type_ids`, `dimensions`, `return_pooled_hidden_states`, `multi_item_delimiter_indices`)
        do not exist on `ScheduleBatch`: the read raises `AttributeError`. (A write that only sets
        one is MWB181.)""",
        """
        def _step(self, batch):
            mwb = batch.get_model_worker_batch()
            if mwb.bid % 2:
                return self.worker.forward_batch_generation(mwb)
        """,
        """
        def _step(self, batch):
            if batch.bid % 2:  # mwbmigrate: MWB136 `bid`: a field of older ModelWorkerBatch versions; ScheduleBatch has no `bid`  # mwbmigrate: MWB141 `mwb` now reads the live `batch`, not proven the same: …
                return self.worker.forward_batch_generation(batch)
        """,
        """Follow the marker: read the removed fields from the `ForwardBatch` (`forward_batch.
        token_type_ids`), keep your own counter for `bid`, drop `launch_done`.""",
        "wild-shapes",
        live_batch=True,
    ),
    _code(
        "MWB137",
        "an attribute that was no field of 0.5.12.post1's `ModelWorkerBatch` (fork-only state)",
        """A fork added its own attribute to the snapshot. `ScheduleBatch` may not have it, and a write
        now sets it on the live batch, where it outlives the forward.""",
        """
        def _step(self, batch):
            mwb = batch.get_model_worker_batch()
            mwb.draft_tree_state = self.tree_state
            return self.worker.forward_batch_generation(mwb)
        """,
        """
        def _step(self, batch):
            batch.draft_tree_state = self.tree_state  # mwbmigrate: MWB106 write to `draft_tree_state` now mutates …  # mwbmigrate: MWB137 `draft_tree_state` is no field of 0.5.12.post1's ModelWorkerBatch (fork-only?): …  # mwbmigrate: MWB141 `mwb` now reads the live `batch`, not proven the same: …
            return self.worker.forward_batch_generation(batch)
        """,
        """Declare the field on your `ScheduleBatch` (and reset it after the forward if it was
        per-forward), or pass the value to the worker another way.""",
        "wild-shapes",
        live_batch=True,
    ),
    _code(
        "MWB186",
        "a read of the scheduler's `batch_record_buf`: its entries are no longer per-forward worker batches",
        """0.5.12's scheduler kept each overlap forward's worker batch in `batch_record_buf`, a
        per-forward snapshot. After the migration the scheduler records the live batch: SGLang 0.5.13
        on stores `[batch, attr_snapshot]` (the batch, and its fields' values when recorded), the
        migrated tree's own scheduler the batch. A watchdog or flight recorder that reads the entries
        as worker batches now reads a list, or the batch as it is now.""",
        """
        class Watchdog(Scheduler):
            def stuck(self):
                return [b.seq_lens for b in self.batch_record_buf if b is not None]
        """,
        """
        class Watchdog(Scheduler):
            def stuck(self):
                return [b.seq_lens for b in self.batch_record_buf if b is not None]  # mwbmigrate: MWB186 the entries of `batch_record_buf` are no longer per-forward worker batches: …
        """,
        """Read what the target records: on SGLang 0.5.13 and later, `batch, values = entry`, where
        `values` lists the batch's dataclass fields' values when it was recorded.""",
        "wild-shapes",
    ),
    _code(
        "MWB187",
        "an override of `record_batch_in_overlap`: called with the live batch every step",
        """0.5.12's scheduler handed `record_batch_in_overlap` each overlap forward's worker batch, a
        new object every step. After the migration it gets the live `ScheduleBatch`, the same object
        every step: a flight recorder that keeps what it is handed keeps one batch many times, and
        SGLang 0.5.13 on expects the method to store `[batch, attr_snapshot]` in
        `batch_record_buf`.""",
        """
        class Recorder(Scheduler):
            def record_batch_in_overlap(self, model_worker_batch: ModelWorkerBatch):
                self.flight_log.append(model_worker_batch)
                super().record_batch_in_overlap(model_worker_batch)
        """,
        """
        class Recorder(Scheduler):
            def record_batch_in_overlap(self, batch: ScheduleBatch):  # mwbmigrate: MWB187 `record_batch_in_overlap` is now called with the live ScheduleBatch, …; MWB113 public parameter renamed …
                self.flight_log.append(batch)
                super().record_batch_in_overlap(batch)
        """,
        """Keep what the step needs, not the batch: copy the values the recorder reads when it is
        called (as SGLang 0.5.13's own method does), and let the base class fill `batch_record_buf`.""",
        "wild-shapes",
    ),
    _code(
        "MWB138",
        "an override write kept on the batch",
        """0.5.16 has no override fields on `ScheduleBatch`: `ForwardBatch.init_new` and
        `forward_batch_generation` take them as keyword arguments. A write is folded into the call's
        keyword only from the statements right before it; this one is further away, in another
        function or block, or the call already passes that keyword.""",
        """
        def _step(self, batch):
            mwb = batch.get_model_worker_batch()
            mwb.capture_hidden_mode = CaptureHiddenMode.LAST
            self.log(mwb)
            return self.worker.forward_batch_generation(mwb)
        """,
        """
        def _step(self, batch):
            batch.capture_hidden_mode = CaptureHiddenMode.LAST  # mwbmigrate: MWB116 `capture_hidden_mode` override not moved next to its consuming call: …  # mwbmigrate: MWB141 `mwb` now reads the live `batch`, not proven the same: …  # mwbmigrate: MWB138 `capture_hidden_mode` kept: 0.5.16 has no such ScheduleBatch field; …
            self.log(batch)
            return self.worker.forward_batch_generation(batch)
        """,
        """Pass the value as the consuming call's keyword (`capture_hidden_mode=M`,
        `return_hidden_states_before_norm=V`) and delete the write.""",
        "override-arguments",
        target_version="0.5.16",
        live_batch=True,
    ),
    _code(
        "MWB139",
        "a `seq_lens_cpu_cache` write: 0.5.16 has no such override",
        """0.5.16's `ForwardBatch.init_new` reads `batch.seq_lens_cpu` and has no `seq_lens_cpu_cache`
        override or keyword, so the write has no effect there.""",
        """
        def _verify(self, batch, spec_info):
            mwb = batch.get_model_worker_batch(seq_lens_cpu_cache=spec_info.seq_lens_cpu)
            return self.worker.forward_batch_generation(mwb)
        """,
        """
        def _verify(self, batch, spec_info):
            batch.seq_lens_cpu_cache = spec_info.seq_lens_cpu  # mwbmigrate: MWB141 `mwb` now reads the live `batch`, not proven the same: …  # mwbmigrate: MWB139 `seq_lens_cpu_cache` kept: 0.5.16 has no such override and `ForwardBatch.init_new` reads `batch.seq_lens_cpu`; …
            return self.worker.forward_batch_generation(batch)
        """,
        """Set `batch.seq_lens_cpu` to the value around the forward and restore it after (`try`/
        `finally`), and delete the write.""",
        "override-arguments",
        target_version="0.5.16",
        live_batch=True,
    ),
    _code(
        "MWB140",
        "`return_hidden_states_before_norm` written right before `forward_batch_generation`",
        """0.5.16's `forward_batch_generation` takes only `capture_hidden_mode=`; only
        `ForwardBatch.init_new` takes `return_hidden_states_before_norm=`.""",
        """
        def _step(self, batch):
            mwb = batch.get_model_worker_batch()
            mwb.return_hidden_states_before_norm = True
            return self.worker.forward_batch_generation(mwb)
        """,
        """
        def _step(self, batch):
            batch.return_hidden_states_before_norm = True  # mwbmigrate: MWB141 `mwb` now reads the live `batch`, not proven the same: …  # mwbmigrate: MWB140 `return_hidden_states_before_norm` kept: 0.5.16's `forward_batch_generation` takes no `return_hidden_states_before_norm=`; …
            return self.worker.forward_batch_generation(batch)
        """,
        """Build the forward batch yourself with `ForwardBatch.init_new(batch, model_runner,
        return_hidden_states_before_norm=True)` and run the model on it, or drop the write if the
        worker never needed it.""",
        "override-arguments",
        target_version="0.5.16",
        live_batch=True,
    ),
    _code(
        "MWB141",
        "`--live-batch`: the former snapshot reads the live batch where the window allowlist does not prove it the same",
        """`get_model_worker_batch()` was dropped and its name now reads the live batch, as upstream did,
        but the window allowlist (README, "When the live batch is read") does not prove that nothing
        between the call and the name's last use can change the batch, or keep it. The one marker
        of the site sits on the first window statement the allowlist did not prove, and names it. A
        write, `del` or rebinding of the batch there is a certain change, and the marker says so.
        By default such a site keeps the snapshot in code instead (MWB182).""",
        """
        def _step(self, batch):
            mwb = batch.get_model_worker_batch()
            self.scheduler.update(batch)
            return self.worker.forward_batch_generation(mwb)
        """,
        """
        def _step(self, batch):
            self.scheduler.update(batch)  # mwbmigrate: MWB141 `mwb` now reads the live `batch`, not proven the same: `self.scheduler.update(batch)` is not `ForwardBatch.init_new(...)` alone
            return self.worker.forward_batch_generation(batch)
        """,
        """Check whether the statement changes a field the worker reads, or keeps the batch. If it does,
        take what the worker needs before it, or run it after the forward; or run without
        `--live-batch`, which keeps the snapshot there.""",
        "worker-batch-calls",
        live_batch=True,
    ),
    _code(
        "MWB142",
        "`--live-batch`: an inline `get_model_worker_batch()` reads the live batch where the window allowlist does not prove it the same",
        """The inline call was a snapshot whose window is its statement. It now reads the live batch,
        as upstream did, but the statement is not `ForwardBatch.init_new(...)` alone with arguments
        that run no code, so the batch may change before the callee reads it, or be kept by it, and
        its later changes show through.""",
        """
        def _step(self, batch):
            self.history.append(batch.get_model_worker_batch())
            return self.worker.forward_batch_generation(batch)
        """,
        """
        def _step(self, batch):
            self.history.append(batch)  # mwbmigrate: MWB142 the inline `get_model_worker_batch()` now reads the live `batch`, not proven the same: …
            return self.worker.forward_batch_generation(batch)
        """,
        """Keep what the holder needs at that moment (copies of the fields it reads), not the batch; or
        run without `--live-batch`, which keeps the snapshot there.""",
        "worker-batch-calls",
        live_batch=True,
    ),
    _code(
        "MWB144",
        "old-object parameter renamed to `schedule_batch`, or not renamed, because a nested scope would capture `batch`",
        """Renaming the parameter `batch` would change what a nested scope reads: a comprehension,
        lambda, nested function or class body in the function binds its own `batch` where it reads
        the parameter, or already reads another `batch` (the module's, a builtin) that the new
        parameter would shadow. The parameter became `schedule_batch`; when that is out too, nothing
        is renamed. (A local bound from `get_model_worker_batch()` that cannot be read as its receiver
        for the same reason keeps its call: MWB101.)""",
        """
        def _run_all(self, model_worker_batch, others):
            return [self.worker.run(model_worker_batch, batch) for batch in others]
        """,
        """
        def _run_all(self, schedule_batch, others):  # mwbmigrate: MWB144 `model_worker_batch` renamed to `schedule_batch`: a comprehension binds `batch`
            return [self.worker.run(schedule_batch, batch) for batch in others]
        """,
        """Nothing is broken: the code works as it is. To match upstream's naming, rename the nested
        scope's own `batch` and then the parameter by hand.""",
        "parameter-renames",
    ),
    _code(
        "MWB145",
        "`locals()` (or the like) sees the renamed parameter under its new name",
        """The parameter was renamed `batch`, but code that looks names up dynamically (`locals()`,
        `vars()`, `frame.f_locals`, …) finds it under the new name only.""",
        """
        def _step(self, model_worker_batch):
            return self.log(locals())
        """,
        """
        def _step(self, batch):
            return self.log(locals())  # mwbmigrate: MWB145 `locals()` sees the parameter as `batch` now, not `model_worker_batch`: check the names it looks up
        """,
        """Update the names the lookup uses (`"batch"` for `"model_worker_batch"`).""",
        "parameter-renames",
    ),
    _code(
        "MWB146",
        "`ModelWorkerBatch` re-exported: the import is kept, and fails on 0.5.13",
        """The module lists the class in `__all__` (or computes `__all__` from its own names), or
        imports it `as ModelWorkerBatch`, PEP 484's explicit re-export: other modules import the
        class from here. Removing the import as unused would break them with nothing said; keeping
        it fails on SGLang 0.5.13, which has no such class, where this module is imported.""",
        """
        from sglang.srt.managers.schedule_batch import ModelWorkerBatch, ScheduleBatch

        __all__ = ["ModelWorkerBatch", "ScheduleBatch"]
        """,
        """
        from sglang.srt.managers.schedule_batch import ModelWorkerBatch, ScheduleBatch  # mwbmigrate: MWB146 re-export of `ModelWorkerBatch` kept (`ModelWorkerBatch` is in `__all__`): …

        __all__ = ["ModelWorkerBatch", "ScheduleBatch"]
        """,
        """Migrate the modules that import `ModelWorkerBatch` from here to `ScheduleBatch` (from SGLang),
        then delete the import and its `__all__` entry.""",
        "imports",
        setup="",
    ),
    _code(
        "MWB146",
        "`ModelWorkerBatch` re-exported: the import is kept, not removed as unused",
        """The module lists the class in `__all__` (or imports it `as ModelWorkerBatch`, PEP 484's
        explicit re-export), so other modules may import it from here. Removing the import would break
        them with nothing said; keeping it fails too, since SGLang 0.5.13 has no such class.""",
        """
        from sglang.srt.managers.schedule_batch import ModelWorkerBatch, ScheduleBatch

        __all__ = ["ModelWorkerBatch", "ScheduleBatch"]
        """,
        """
        from sglang.srt.managers.schedule_batch import ModelWorkerBatch, ScheduleBatch  # mwbmigrate: MWB146 re-export of `ModelWorkerBatch` kept (`ModelWorkerBatch` is in `__all__`): …

        __all__ = ["ModelWorkerBatch", "ScheduleBatch"]
        """,
        """Find the modules that import `ModelWorkerBatch` from this one and migrate them (they take
        `ScheduleBatch` now), then drop the name from the import and from `__all__`.""",
        "imports",
        setup="",
    ),
    _code(
        "MWB147",
        "`model_worker_batch=` kept: the call cannot be pinned to the renamed function of that name",
        """A function of this name was renamed in the project, but the call's receiver is unknown (or a
        subclass here overrides the method differently), so the keyword is not renamed: the call may
        reach that function, which takes `batch=` now, or another one.""",
        """
        class Drafter:
            def _run(self, model_worker_batch): ...
        def _call(obj, mwb):
            return obj._run(model_worker_batch=mwb)
        """,
        """
        class Drafter:
            def _run(self, batch): ...
        def _call(obj, mwb):
            return obj._run(model_worker_batch=mwb)  # mwbmigrate: MWB147 `model_worker_batch=` kept: cannot tell whether this `_run` is `Drafter._run`, which takes `batch=` now
        """,
        """Find what the call reaches; if it is the renamed function, pass the new keyword (`batch=`).""",
        "keyword-callers",
    ),
    _code(
        "MWB148",
        "`lora_ids` / `dllm_block_offsets` changed in place: kept",
        """These are computed from the requests on `ScheduleBatch`; a list rebuilt at each read would
        drop an in-place change (`.append`, item assignment), so the code is kept as it is.""",
        """
        def _step(self, model_worker_batch, req_id):
            model_worker_batch.lora_ids.append(req_id)
            return self.worker.forward_batch_generation(model_worker_batch)
        """,
        """
        def _step(self, batch, req_id):
            batch.lora_ids.append(req_id)  # mwbmigrate: MWB148 `lora_ids` changed in place (`.append`): kept; a list rebuilt from `reqs` at each read would drop the change …
            return self.worker.forward_batch_generation(batch)
        """,
        """Set the per-request value instead (`req.lora_id`, `req.dllm_block_offset` on the requests in
        `batch.reqs`).""",
        "field-renames",
    ),
    _code(
        "MWB149",
        "`lora_ids` / `dllm_block_offsets` handed on: it is a new list at each read now",
        """The read became `[req.lora_id for req in batch.reqs]`, a fresh list each time; a callee that
        changes or keeps the list no longer changes the batch or what a later read sees.""",
        """
        def _step(self, model_worker_batch):
            self.patch(model_worker_batch.lora_ids)
            return self.worker.forward_batch_generation(model_worker_batch)
        """,
        """
        def _step(self, batch):
            self.patch([req.lora_id for req in batch.reqs])  # mwbmigrate: MWB149 `lora_ids` passed to `self.patch()`: now a new list built from `reqs` at each read, …
            return self.worker.forward_batch_generation(batch)
        """,
        """If the callee changes the list, make it set `req.lora_id` on the requests instead; if it only
        reads it, nothing to do.""",
        "field-renames",
    ),
    _code(
        "MWB150",
        "`isinstance(x, ModelWorkerBatch)` where `x` may have held a ScheduleBatch too",
        """After the migration the old object is the ScheduleBatch it came from, so a value that held
        either can no longer be told apart. A plain `if` test on a `Union[ScheduleBatch,
        ModelWorkerBatch]` parameter (or on a value the function also calls `get_model_worker_batch()`
        on, or also tests against ScheduleBatch) loses its branch, as upstream deleted DFlash's: a
        caller that passed the old object now takes the ScheduleBatch path. Any other test, and any
        test on a value not known to hold the old object, now tests ScheduleBatch: the old object's
        branch is kept, but a ScheduleBatch that reached it before now takes that branch too.""",
        """
        def forward(self, batch: Union[ScheduleBatch, ModelWorkerBatch]):
            if isinstance(batch, ModelWorkerBatch):
                return self.fallback(batch)
            return self.run(batch)
        """,
        """
        def forward(self, batch: ScheduleBatch):  # mwbmigrate: MWB150 `isinstance(batch, ModelWorkerBatch)` branch deleted as upstream did: …
            return self.run(batch)
        """,
        """Check which callers passed the old object and whether the path they take now is right for
        them; restore the branch on another condition if it is not.""",
        "isinstance-checks",
    ),
    _code(
        "MWB151",
        "old API left on a statement that no other rule migrated or reported",
        """A coverage hole: a code token still names SGLang's old class or `get_model_worker_batch`, and
        no codemod rewrote or marked it. It breaks on 0.5.13.""",
        """
        def _lookup(registry):
            return registry.get_model_worker_batch
        """,
        """
        def _lookup(registry):
            return registry.get_model_worker_batch  # mwbmigrate: MWB151 old API left here: `registry.get_model_worker_batch` (no rule migrated or reported it; it breaks on 0.5.13)
        """,
        """Migrate the line by hand (see the codes of similar shapes), and consider reporting the shape so
        a rule can cover it.""",
        "coverage-holes",
    ),
    _code(
        "MWB154",
        "a version gate `--collapse-compat` could not collapse: kept for both APIs",
        """`--collapse-compat` keeps the side of each gate that runs on 0.5.13. Here it cannot tell
        which side that is: a flag stored on an attribute, a test it cannot evaluate (it could raise on
        0.5.13), a guarded import whose fallback is not `None` or that something else still reads, an
        environment switch whose legacy code follows it. The gate and its old API are kept.""",
        """
        def _step(self, batch):
            if self.legacy:
                batch = batch.get_model_worker_batch()
            return self.worker.forward_batch_generation(batch)

        def __init__(self, batch):
            self.legacy = hasattr(batch, "get_model_worker_batch")
        """,
        """
        def _step(self, batch):
            if self.legacy:  # mwbmigrate: MWB154 a feature check kept: --collapse-compat cannot tell what it runs on 0.5.13
                batch = batch.get_model_worker_batch()
            return self.worker.forward_batch_generation(batch)

        def __init__(self, batch):
            self.legacy = hasattr(batch, "get_model_worker_batch")  # mwbmigrate: MWB154 a feature check kept: --collapse-compat cannot tell what it runs on 0.5.13
        """,
        """Delete the legacy side by hand (or make the test one `--collapse-compat` can read: a
        module-level flag set once, a guarded import with a `None` fallback).""",
        "wild-shapes",
        collapse_compat=True,
    ),
    _code(
        "MWB155",
        "a version-gated SGLang override keeps `model_worker_batch`, which 0.5.13 passes as `batch=`",
        """A gate's function is left as it is, parameters included. When that function overrides one
        whose parameter SGLang renamed (`forward_batch_generation`, `draft`, ...), SGLang 0.5.13 and
        every keyword caller the migration moved to `batch=` no longer match it.""",
        """
        class TracingWorker(TpModelWorker):
            def forward_batch_generation(self, model_worker_batch):
                if hasattr(model_worker_batch, "get_model_worker_batch"):
                    model_worker_batch = model_worker_batch.get_model_worker_batch()
                return super().forward_batch_generation(model_worker_batch)
        """,
        """
        class TracingWorker(TpModelWorker):
            def forward_batch_generation(self, model_worker_batch):  # mwbmigrate: MWB155 `forward_batch_generation` keeps `model_worker_batch` in version-gated code: …  # mwbmigrate: MWB120 old API kept in version-gated code
                if hasattr(model_worker_batch, "get_model_worker_batch"):  # mwbmigrate: MWB120 feature check on `get_model_worker_batch`: …
                    model_worker_batch = model_worker_batch.get_model_worker_batch()
                return super().forward_batch_generation(model_worker_batch)  # mwbmigrate: MWB120 old API kept in version-gated code
        """,
        """Rename the parameter to `batch` by hand (the gate's body can keep its test), or drop the gate
        with `--collapse-compat` once 0.5.13 is the minimum.""",
        "wild-shapes",
        setup="from sglang.srt.managers.tp_worker import TpModelWorker\n\n\n",
    ),
    _code(
        "MWB156",
        "`model_worker_batch=` kept in version-gated code",
        """A gate's function is left as it is, keyword arguments included, while the function it calls
        may be migrated (this project's helper, or SGLang's own, renamed `batch` in 0.5.13): the call
        then fails with an unexpected keyword.""",
        """
        def forward_and_record(worker, model_worker_batch):
            return worker.forward_batch_generation(model_worker_batch)

        def run_compat(worker, batch):
            if hasattr(batch, "get_model_worker_batch"):
                return forward_and_record(worker, model_worker_batch=batch.get_model_worker_batch())
            return forward_and_record(worker, model_worker_batch=batch)
        """,
        """
        def forward_and_record(worker, batch):  # mwbmigrate: MWB113 public parameter renamed `model_worker_batch` -> `batch`: …
            return worker.forward_batch_generation(batch)

        def run_compat(worker, batch):
            if hasattr(batch, "get_model_worker_batch"):  # mwbmigrate: MWB120 feature check on `get_model_worker_batch`: …
                return forward_and_record(worker, model_worker_batch=batch.get_model_worker_batch())  # mwbmigrate: MWB156 `model_worker_batch=` kept in version-gated code: …
            return forward_and_record(worker, model_worker_batch=batch)  # mwbmigrate: MWB120 old API kept in version-gated code  # mwbmigrate: MWB156 `model_worker_batch=` kept in version-gated code: …
        """,
        """Pass the batch positionally in the gated code, or as `batch=` where the callee was renamed.""",
        "wild-shapes",
    ),
    _code(
        "MWB151",
        "old API left in place with nothing else said about it (a coverage hole)",
        """The end check found a code token that still names SGLang's old class or method (a name,
        `module.ModelWorkerBatch`, an import, a string annotation, a type comment, a reference to
        `get_model_worker_batch` that is not called on the spot, an `@overload` stub keeping
        `model_worker_batch` while its implementation was renamed) on a statement no other rule
        rewrote or marked. It fails on 0.5.13.""",
        """
        def _step(self, batch):
            make = batch.get_model_worker_batch
            return self.worker.forward_batch_generation(make())
        """,
        """
        def _step(self, batch):
            make = batch.get_model_worker_batch  # mwbmigrate: MWB151 old API left here: `batch.get_model_worker_batch` (no rule migrated or reported it; it breaks on 0.5.13)
            return self.worker.forward_batch_generation(make())
        """,
        """Migrate the site by hand as the nearest migrated shape would be (here: pass `batch` itself
        where the snapshot was used).""",
        "coverage-holes",
    ),
    _code(
        "MWB152",
        "the old class used as a run-time value: it is ScheduleBatch there now",
        """The class is rewritten to `ScheduleBatch`, but here it is a value, not a type: a base
        class, an argument, a parameter default, a key or element of a container, or a public alias
        other modules import. Whatever receives it now gets `ScheduleBatch`, which the old class
        never matched (a subclass derives from the live batch, an `isinstance` against it now
        matches the scheduler's batch, a key collides).""",
        """
        class TracedBatch(ModelWorkerBatch):
            pass
        """,
        """
        class TracedBatch(ScheduleBatch):  # mwbmigrate: MWB152 `ModelWorkerBatch` used as a run-time value (a base class): it becomes ScheduleBatch there, which the old class never matched
            pass
        """,
        """Check what receives the class. Type tests and registrations for the old snapshot usually go;
        a subclass of the snapshot needs rewriting against `ScheduleBatch`'s fields.""",
        "class-references",
    ),
    _code(
        "MWB153",
        "a parameter typed with the old class only by a signature type comment",
        """`# type: (ModelWorkerBatch, ...) -> ...` types the parameter, but the migration reads
        annotations: the parameter is neither renamed nor are its old fields (`extend_seq_lens`,
        `lora_ids`, ...) rewritten, though callers now pass the live `ScheduleBatch`. The comment
        itself is rewritten.""",
        """
        def _lens(snapshot):
            # type: (ModelWorkerBatch) -> list
            return snapshot.extend_seq_lens
        """,
        """
        def _lens(snapshot):  # mwbmigrate: MWB153 signature type comment types `snapshot` with `ModelWorkerBatch`: not renamed or migrated like an annotated parameter; annotate it
            # type: (ScheduleBatch) -> list
            return snapshot.extend_seq_lens
        """,
        """Annotate the parameter with `ModelWorkerBatch` in the original and run the migration again,
        or rename its fields by hand (`extend_seq_lens` -> `extend_lens`, ...).""",
        "class-references",
    ),
    _code(
        "MWB157",
        "a worker override gained the parameters the target's callers pass it",
        """The method stands in for one of SGLang's workers (its class subclasses `TpModelWorker`,
        `EAGLEWorkerV2`, `NGRAMWorker`, ..., or a registered speculative algorithm's factory returns
        it), and the target's callers pass it keywords it did not take: the scheduler passes a
        speculative worker `on_publish=` (0.5.14 on), `grammar_barrier=` (0.5.17) and
        `pp_proxy_tensors=` (0.5.19); the spec-v2 workers pass their `TpModelWorker`
        `capture_hidden_mode=` (0.5.16) and `return_kv_loc_plan=` (0.5.22). Without them the call
        raises `TypeError`. They are added with the target's defaults and handed on to `super()` or
        the target worker where that callee takes them; the method itself still ignores them.""",
        """
        from sglang.srt.speculative.eagle_worker_v2 import EAGLEWorkerV2

        class MyEagle(EAGLEWorkerV2):
            def forward_batch_generation(self, batch):
                return super().forward_batch_generation(batch)
        """,
        """
        class MyEagle(EAGLEWorkerV2):
            def forward_batch_generation(
                self,
                batch,
                on_publish=None,
                grammar_barrier=None,
                pp_proxy_tensors=None,
            ):  # mwbmigrate: MWB157 `forward_batch_generation` now takes `on_publish=None`, `grammar_barrier=None`, `pp_proxy_tensors=None`: …
                return super().forward_batch_generation(
                    batch,
                    on_publish=on_publish,
                    grammar_barrier=grammar_barrier,
                    pp_proxy_tensors=pp_proxy_tensors,
                )
        """,
        """Use what the callers now pass where the worker needs it: call `on_publish` when the step's
        results are ready (the overlap scheduler waits for it), honour `grammar_barrier` before the
        grammar mask, forward `pp_proxy_tensors` on pipeline-parallel runs.""",
        "worker-signatures",
        target_version="0.5.23",
        kind=NOTE,
    ),
    _code(
        "MWB158",
        "a read of a batch field the target removed, which has no same-meaning successor",
        """The target has no such field on `ScheduleBatch` / `ForwardBatch`, so the read raises
        `AttributeError`: `can_run_dp_cuda_graph` and `can_run_dp_breakable_cuda_graph` (removed in
        0.5.19, where the batches carry `can_run_decode_cuda_graph` and
        `can_run_dp_prefill_cuda_graph`, which split the decision differently), `all_extend_in_batch`
        (0.5.16) and ForwardBatch `num_token_non_padded_cpu` (0.5.20). The read is kept; the reason
        names what the target has in its place.""",
        """
        def use_graph(batch: ScheduleBatch):
            return batch.can_run_dp_cuda_graph
        """,
        """
        def use_graph(batch: ScheduleBatch):
            return batch.can_run_dp_cuda_graph  # mwbmigrate: MWB158 `can_run_dp_cuda_graph` read: SGLang 0.5.19 removed it, …
        """,
        """Read the field the reason names where it means what the code needs (for a decode batch,
        `can_run_decode_cuda_graph`), or compute the value where the batch is built.""",
        "removed-fields",
        target_version="0.5.23",
    ),
    _code(
        "MWB159",
        "a worker override gained a parameter whose value it must act on, and ignores it",
        """The target's callers pass this parameter a value the worker is expected to act on: the
        overlap scheduler hands a speculative worker `on_publish=` (0.5.14 on) and publishes the
        step's results only through it, and `grammar_barrier=` (0.5.17), called before the
        grammar mask; a spec-v2 worker asks its target `TpModelWorker` for hidden states with
        `capture_hidden_mode=` (0.5.16) and for the KV location plan with `return_kv_loc_plan=`
        (0.5.22). The override now accepts it, so the call no longer raises `TypeError`, but it
        neither reads it nor hands it on to `super().forward_batch_generation(...)`.""",
        """
        from sglang.srt.speculative.eagle_worker_v2 import EAGLEWorkerV2

        class MyEagle(EAGLEWorkerV2):
            def forward_batch_generation(self, batch):
                return self.run_draft(batch)
        """,
        """
        class MyEagle(EAGLEWorkerV2):
            def forward_batch_generation(self, batch, on_publish=None):  # mwbmigrate: MWB159 `on_publish` added but neither used nor handed on: …  # mwbmigrate: MWB157 `forward_batch_generation` now takes `on_publish=None`: …
                return self.run_draft(batch)
        """,
        """Act on it as SGLang's own worker does: call `on_publish(...)` once the step's results are
        ready, `grammar_barrier()` before the grammar mask, pass `capture_hidden_mode=` to
        `ForwardBatch.init_new`, return the KV location plan when asked; or hand it on to the
        worker that does.""",
        "worker-signatures",
        target_version="0.5.14",
    ),
    _code(
        "MWB188",
        "a worker override whose signature the rewrite cannot adapt: a decorator's wrapper, a function installed in the class body, a mixin of workers of different kinds",
        """The target's callers pass the worker's `forward_batch_generation` keywords besides the
        batch (`on_publish=` 0.5.14 on, `capture_hidden_mode=` 0.5.16 on, ...). A method defined in
        the worker's class body gains them (MWB157), but here the callers reach something else
        first: the wrapper of a decorator that is not one of the few known to hand every argument
        on (`torch.no_grad`, `torch.inference_mode`, `abstractmethod`, ...), or a function assigned
        in the class body (`forward_batch_generation = traced_forward`), whose signature lives
        elsewhere. A wrapper or function that takes only the batch raises `TypeError` at the
        target; one that takes them may still not hand them on. A mixin mixed into workers of
        different kinds (a `TpModelWorker` subclass and an EAGLE worker) runs as the override of
        both, which the callers pass different keywords: no one signature takes both.""",
        """
        from sglang.srt.speculative.eagle_worker_v2 import EAGLEWorkerV2
        from .tracing import traced

        class MyEagle(EAGLEWorkerV2):
            @traced
            def forward_batch_generation(self, batch):
                return super().forward_batch_generation(batch)
        """,
        """
        class MyEagle(EAGLEWorkerV2):
            @traced
            def forward_batch_generation(self, batch, on_publish=None):  # mwbmigrate: MWB188 `@traced` wraps this worker override: …  # mwbmigrate: MWB157 `forward_batch_generation` now takes `on_publish=None`: …
                return super().forward_batch_generation(batch, on_publish=on_publish)
        """,
        """Make the wrapper, the installed function or the mixin's override take `**kwargs` and hand
        them on to what it wraps or to `super()`, or give it the parameters the target's callers
        pass and hand each one on as a method's own `super()` call does.""",
        "worker-signatures",
        target_version="0.5.14",
    ),
    _code(
        "MWB189",
        "a call into an API the target changed, made where the rewrite cannot see its keywords",
        """The target renamed a keyword of a method (`filter_batch`'s `chunked_req_to_exclude`
        became `reqs_to_exclude` in 0.5.22) or requires a new one (`ForwardBatch.init_new`'s
        `return_hidden_states_before_norm`, 0.5.23). The rewrite renames or adds it in every call
        it sees, but here the keywords come from a `**mapping` whose keys it cannot read, or the
        function is taken as a value (`functools.partial(ForwardBatch.init_new, ...)`, a table of
        builders) and called elsewhere: a key that still names the old keyword, or a call that
        lacks the required one, raises `TypeError` at the target.""",
        """
        def drop_finished(batch: ScheduleBatch, options):
            batch.filter_batch(**options)
        """,
        """
        def drop_finished(batch: ScheduleBatch, options):
            batch.filter_batch(**options)  # mwbmigrate: MWB189 `filter_batch(**options)`: SGLang 0.5.22 renamed its keyword …
        """,
        """Rename the key where the mapping is built (`reqs_to_exclude`), or pass the required
        keyword where the function is bound (`functools.partial(ForwardBatch.init_new, ...,
        return_hidden_states_before_norm=False)`).""",
        "removed-fields",
        "override-arguments",
        target_version="0.5.22",
    ),
    _code(
        "MWB181",
        "a write of an attribute of the old object that `ScheduleBatch` does not have: a stray attribute",
        """Setting `token_type_ids`, `dimensions`, `return_pooled_hidden_states`,
        `multi_item_delimiter_indices` (removed in 0.5.13), `bid` or `launch_done` on what is now the
        live batch raises nothing: it adds an attribute that no SGLang code reads, so whatever the
        old object carried to the forward through it no longer arrives.""",
        """
        def _step(self, batch):
            mwb = batch.get_model_worker_batch()
            mwb.token_type_ids = self.token_types
            return self.worker.forward_batch_generation(mwb)
        """,
        """
        def _step(self, batch):
            batch.token_type_ids = self.token_types  # mwbmigrate: MWB106 write to `token_type_ids` now mutates the scheduler's ScheduleBatch …; MWB181 `token_type_ids`: removed from ScheduleBatch in 0.5.13; …  # mwbmigrate: MWB141 `mwb` now reads the live `batch`, not proven the same: …
            return self.worker.forward_batch_generation(batch)
        """,
        """Hand the value to where 0.5.13 reads it: the four removed fields are derived from
        `batch.reqs` by `ForwardBatch.init_new`, so set them on the requests (or on the forward batch
        after `init_new`); drop `bid` and `launch_done`.""",
        "wild-shapes",
        live_batch=True,
    ),
    _code(
        "MWB180",
        "a write to the batch that the target's forward isolation sets back after the forward",
        """The write now reaches the scheduler's `ScheduleBatch` instead of a throw-away copy, but it
        runs only inside a forward that the target's `Scheduler._forward_isolation` snapshots whole
        and restores (0.5.13: the EAGLE, EAGLE3 and STANDALONE V2 workers and their draft workers;
        0.5.14 on: every speculative worker). The proof rules I1 and I2 (README) decide it: the
        write is on a parameter of a method of such a worker, or of a function the tree calls only
        from such methods. After the forward the batch is as the copy left it.""",
        """
        from sglang.srt.speculative.eagle_worker_v2 import EAGLEWorkerV2

        class MyEagle(EAGLEWorkerV2):
            def forward_batch_generation(self, model_worker_batch: ModelWorkerBatch, on_publish=None):
                model_worker_batch.spec_info = self.draft_input
                return super().forward_batch_generation(model_worker_batch, on_publish=on_publish)
        """,
        """
        class MyEagle(EAGLEWorkerV2):
            def forward_batch_generation(self, batch: ScheduleBatch, on_publish=None):  # mwbmigrate: MWB113 public parameter renamed …
                batch.spec_info = self.draft_input  # mwbmigrate: MWB180 write to `spec_info` reaches the scheduler's batch; …
                return super().forward_batch_generation(batch, on_publish=on_publish)
        """,
        """Nothing for the scheduler's view of the batch. Code that reads the batch through another
        name during the forward now sees the write; a write into an object the batch holds is not
        undone (the snapshot is shallow).""",
        "semantic-review",
        kind=NOTE,
    ),
    _code(
        "MWB184",
        "a statement the request-pool repair inserted: it changes behaviour on purpose",
        """req-pool-mirror (upstream PR 28514) keeps `req_pool_indices_cpu` in step with the device
        tensor: it restores a missing mirror at the start of `prepare_for_decode` and `merge_batch`,
        and builds it in decode-batch builders that set `req_pool_indices` alone, as the target
        release does. With `--clear-emptied-batches` it also clears the metadata of a batch that
        `filter_batch` empties, which no release does. Each such statement is reported.""",
        """
        class ScheduleBatch:
            req_pool_indices_cpu = None

            def prepare_for_decode(self):
                self.req_pool_indices = self.req_pool_indices
        """,
        """
        class ScheduleBatch:
            req_pool_indices_cpu = None

            def prepare_for_decode(self):
                ensure_req_pool_indices_cpu(self)  # mwbmigrate: MWB184 request-pool repair (upstream PR 28514): restores `self.req_pool_indices_cpu` when it is missing
                self.req_pool_indices = self.req_pool_indices
        """,
        """Nothing, unless the tree keeps the mirror some other way: then drop the statement.""",
        "req-pool-mirror",
        kind=NOTE,
    ),
    _code(
        "MWB182",
        "the per-forward snapshot is kept in code: reading the live batch is not proven the same",
        """`get_model_worker_batch()` returned a fresh snapshot for each forward. Reading the live batch
        where the snapshot was read is the same only where nothing between the snapshot and its last
        use can change the batch, and the window allowlist (README, "When the live batch is read")
        proves that only for a few shapes. Everywhere else the rewrite keeps the snapshot in code:
        `worker_batch_snapshot(batch)` is the old object itself (the runtime's `ModelWorkerBatch`,
        built by the old method's reads, running none of the batch class's code), which answers what
        the old object answered (its fields, its derived values, the override for every forward), so
        nothing behaves differently. The note names the first statement the allowlist did not prove.
        The allowlist: (1) the snapshot is one local, bound once, with no override argument, used
        only in the statements that follow it in its block (or inline in such a statement); (2) each
        of those statements is `ForwardBatch.init_new(...)` alone, as an expression, a `return` or an
        assignment to a local bound nowhere else, or only to literals; (3) `ForwardBatch` is bound by
        one import from SGLang, and otherwise only to `None`; (4) every argument is the snapshot, a
        local or parameter name, a literal, or a plain attribute of `self`; (5) nowhere in the tree is
        `init_new` patched, nor does code run when the forward reads the batch (a property on a field
        it reads, an attribute hook, a container class that may be false); (6) a window statement may
        also assert on the snapshot's capture mode against a literal, a local or an SGLang constant,
        where the rewrite reads the old method's derivation from the batch. `--live-batch` reads the
        live batch everywhere instead, marked where unproven.""",
        """
        def _step(self, batch):
            mwb = batch.get_model_worker_batch()
            self.scheduler.update(batch)
            return self.worker.forward_batch_generation(mwb)
        """,
        """
        def _step(self, batch):
            mwb = worker_batch_snapshot(batch)  # mwbmigrate: MWB182 `mwb` stays a per-forward snapshot (`worker_batch_snapshot`): …
            self.scheduler.update(batch)
            return self.worker.forward_batch_generation(mwb)
        """,
        """Nothing, unless you want upstream's shape: if the statement named cannot change the batch
        before the last use (here: `update()` leaves the fields the worker reads alone), replace the
        copy by `batch` and its name by `batch`, or run with `--live-batch`, which does that everywhere
        and marks what it cannot prove.""",
        "worker-batch-calls",
        kind=NOTE,
    ),
    _code(
        "MWB183",
        "a kept snapshot cannot keep what the forward reads: the requests' fields, its lists, another value",
        """The snapshot kept in code (MWB182) is the old object, but 0.5.13's `init_new` builds
        `lora_ids`, `dllm_block_offsets` and the grammars from the requests at the forward, where the
        old object had read them when it was taken. So a request's `lora_id`, `dllm_block_offset` or
        `grammar` written after the snapshot, or the snapshot's own `lora_ids` changed or handed on,
        reaches the forward differently. Also reported: reflection that tells the runtime's stand-in
        apart (`type(x)`, `x.__class__`, a probe of a name that is not an old field,
        `dataclasses.replace`), a write of an override field's reset value on it, and a name that
        holds the snapshot on one path and something else on another.""",
        """
        def _step(self, batch):
            mwb = batch.get_model_worker_batch()
            mwb.lora_ids.append("extra")
            return self.worker.forward_batch_generation(mwb)
        """,
        """
        def _step(self, batch):
            mwb = worker_batch_snapshot(batch)  # mwbmigrate: MWB182 `mwb` stays a per-forward snapshot (`worker_batch_snapshot`): …
            mwb.lora_ids.append("extra")  # mwbmigrate: MWB183 `mwb.lora_ids` is changed or handed on: …
            return self.worker.forward_batch_generation(mwb)
        """,
        """Set the request fields before the snapshot is taken (`req.lora_id = ...`), so that
        `init_new` reads them.""",
        "worker-batch-calls",
    ),
    _code(
        "MWB185",
        "the target release's contract still finds a break here: no rule migrated or reported it",
        """With `--target-version`, the last step checks the rewritten files against the target
        release's contract, as `verify --against` does: every call the release makes into a worker
        override binds, every call into the release binds its signature, and every attribute of a
        `ScheduleBatch` or `ForwardBatch` value exists on the release's class. A break on a
        statement that no rule marked gets this marker, with verify's message: the rules know the
        changes they model, and the contract sees the rest (a keyword a release dropped, a field it
        no longer has), also in a release this tool has never seen (`--target-version WHEEL|DIR`).
        The release is read from its wheel, downloaded once into the cache; where it cannot be
        fetched the run says so and marks nothing.""",
        """
        def drop_finished(batch: ScheduleBatch):
            batch.filter_batch(v1_spec_info_filtered=True)
        """,
        """
        def drop_finished(batch: ScheduleBatch):
            batch.filter_batch(v1_spec_info_filtered=True)  # mwbmigrate: MWB185 SGLang 0.5.23's ScheduleBatch.filter_batch(...) does not take the keyword `v1_spec_info_filtered`: …
        """,
        """Change the call to what the target takes (here: 0.5.14 filters the speculative input inside
        `filter_batch`; drop the keyword), then run `mwbmigrate verify --against` the target.""",
        "contract-breaks",
        target_version="0.5.23",
        contract=True,
    ),
)

REVIEW_CODES: dict[str, ReviewCode] = {entry.code: entry for entry in _CODES}
NOTE_CODES: frozenset[str] = frozenset(entry.code for entry in _CODES if entry.kind == NOTE)


def code_kind(code: str) -> str:
    """HAZARD or NOTE: what the registry declares for `code` (an unknown code is a hazard)."""
    entry = REVIEW_CODES.get(code)
    return entry.kind if entry is not None else HAZARD


def valid_codes() -> tuple[str, ...]:
    """Every key `--select` / `--ignore` / `explain` accept: codemod codes and names, review codes."""
    codemod_keys = [key for rule in RULES for key in (rule.code, rule.name)]
    return tuple(sorted(codemod_keys)) + tuple(sorted(REVIEW_CODES))


def is_known_code(key: str) -> bool:
    return key in REVIEW_CODES or rule_by_key(key) is not None


def _fill(text: str, indent: str = "") -> str:
    # Hyphens stay: a wrapped `old-API` or `--target-version` would no longer read (or grep) as one word.
    return textwrap.fill(
        text, 100, initial_indent=indent, subsequent_indent=indent, break_on_hyphens=False, break_long_words=False
    )


def _indented(text: str) -> str:
    return textwrap.indent(text.rstrip("\n"), "    ")


_KIND_MEANING = {
    HAZARD: "behaviour may differ, a marker in the code",
    NOTE: "nothing on the line behaves differently, listed in the report; `--markers all` writes it",
}


def _explain_review_code(entry: ReviewCode) -> str:
    codes = {rule.name: rule.code for rule in RULES}  # tests check every name is registered
    reported_by = ", ".join(f"{name} ({codes[name]})" for name in entry.reported_by)
    version_note = (
        f" (only with --target-version {entry.target_version})"
        if entry.target_version != DEFAULT_TARGET_VERSION
        else ""
    )
    return (
        "\n".join(
            [
                f"{entry.code}  {entry.title}",
                f"review code ({entry.kind}: {_KIND_MEANING[entry.kind]}), reported by {reported_by}{version_note}",
                "",
                _fill(entry.meaning),
                "",
                "Example, before:",
                _indented(entry.example_before),
                "",
                "after `mwbmigrate rewrite` (left as shown, with a marker):",
                _indented(entry.example_after),
                "",
                "What to do:",
                _fill(entry.what_to_do, "    "),
                "",
                f"Once resolved, delete the `# mwbmigrate: {entry.code}` marker; `--ignore {entry.code}` stops reporting it.",
            ]
        )
        + "\n"
    )


def _explain_codemod(key: str) -> str | None:
    import inspect

    # Its description is its module's docstring: the one path here that imports the codemods.
    from mwbmigrate.codemods import codemod_by_key

    codemod = codemod_by_key(key) or codemod_by_key(key.upper())
    if codemod is None:
        return None
    description = inspect.getdoc(inspect.getmodule(codemod)) or ""
    reported = [entry.code for entry in _CODES if codemod.NAME in entry.reported_by]
    lines = [
        f"{codemod.CODE}  {codemod.NAME}",
        "codemod",
        "",
        _fill(codemod.SUMMARY),
        "",
        "Before -> after (the codemod's own description):",
        _indented(description),
        "",
        "What to do:",
        "    Nothing by hand: `mwbmigrate rewrite` runs it; review what it changed with `--dry-run`.",
        f"    `--select` / `--ignore` take its code or its name ({codemod.CODE}, {codemod.NAME}).",
    ]
    if reported:
        lines.append(
            f"    Sites it leaves as they are carry a marker; see `mwbmigrate explain CODE` for {', '.join(reported)}."
        )
    return "\n".join(lines) + "\n"


def explain(key: str) -> str | None:
    """The text `mwbmigrate explain KEY` prints, or None for an unknown key."""
    if key.upper() in REVIEW_CODES:
        return _explain_review_code(REVIEW_CODES[key.upper()])
    return _explain_codemod(key)


def explain_all() -> str:
    keys = [rule.code for rule in RULES] + list(REVIEW_CODES)
    return "\n\n".join(explain(key) for key in keys)  # type: ignore[misc]
