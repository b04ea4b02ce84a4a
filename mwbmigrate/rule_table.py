"""The codemods' declarations as plain data: written by `scripts/rule_table.py` from the classes
in `mwbmigrate.codemods`, and checked against them (tests/codemods/test_rule_table.py). Do not edit.

The command line, discovery and a run whose every file the result cache holds read the registry
here, so they import no codemod and no LibCST (mwbmigrate/rules.py)."""

from __future__ import annotations

from typing import NamedTuple


class Rule(NamedTuple):
    code: str
    name: str
    summary: str
    requires: tuple[str, ...]  # the codes it needs run with it
    stage: str  # "first", "second" or "contract": the pass of engine/runner.py that runs it
    triggers: tuple[bytes, ...]  # its TRIGGERS: it acts only on a module holding one (or by the project's facts)
    required: tuple[bytes, ...]  # its REQUIRED_WORDS: and, where any, holding one of them too
    since: str  # the first target it runs for
    until: str | None  # the first target it no longer runs for (None: through the newest)


# fmt: off
RULES: tuple[Rule, ...] = (
    Rule('MWB010', 'semantic-review', 'Mark sites whose meaning changes with the migration (one-shot overrides, derived and ungated reads, copy semantics).', (), 'first', (b'model_worker_batch', b'ModelWorkerBatch', b'.init_new = ', b'.forward_batch_generation = ', b'.forward_batch_embedding = '), (), '0.5.13', None),
    Rule('MWB011', 'wild-shapes', 'Mark old-API shapes of forks, plugins and tests (shims, fakes, monkeypatches, stubs, copies, fork-only fields); rewrites nothing.', (), 'first', (b'model_worker_batch', b'ModelWorkerBatch', b'batch_record_buf', b'record_batch_in_overlap', b'.init_new = ', b'.forward_batch_generation = ', b'.forward_batch_embedding = '), (), '0.5.13', None),
    Rule('MWB008', 'isinstance-checks', 'Keep `isinstance(x, ModelWorkerBatch)` tests on the branch they took: test ScheduleBatch where `x` held the old object, delete the branch where it held a ScheduleBatch, report where it held either.', ('MWB010', 'MWB011'), 'first', (b'ModelWorkerBatch',), (b'isinstance', b'case '), '0.5.13', None),
    Rule('MWB006', 'field-renames', 'Rename `extend_seq_lens`/`extend_prefix_lens` and compute `lora_ids`/`dllm_block_offsets` from reqs on old-object receivers.', ('MWB010', 'MWB011'), 'first', (b'ModelWorkerBatch', b'model_worker_batch', b'.init_new = ', b'.forward_batch_generation = ', b'.forward_batch_embedding = '), (), '0.5.13', None),
    Rule('MWB005', 'worker-batch-calls', 'Delete `x = batch.get_model_worker_batch()` and read `batch` wherever `x` was read; overrides become `batch.seq_lens_cpu_cache = E`.', ('MWB006', 'MWB010', 'MWB011'), 'first', (b'get_model_worker_batch',), (), '0.5.13', None),
    Rule('MWB004', 'parameter-renames', 'Rename `model_worker_batch` (and other old-object parameters) to `batch`, with every use.', ('MWB007', 'MWB010', 'MWB011'), 'first', (b'model_worker_batch', b'ModelWorkerBatch'), (), '0.5.13', None),
    Rule('MWB014', 'override-moves', 'Move one-shot override writes to the line before their consuming call, and derived-mode asserts onto the forward batch after init_new.', ('MWB010', 'MWB011'), 'first', (b'ModelWorkerBatch', b'model_worker_batch'), (), '0.5.13', None),
    Rule('MWB013', 'core-runtime', "In an SGLang core tree: `ForwardBatch.init_new` reads the batch through the runtime's view; the overlap forward runs in `overlap_forward_isolation`.", ('MWB010', 'MWB011'), 'first', (b'ModelWorkerBatch', b'model_worker_batch', b'record_batch_in_overlap', b'seq_lens.record_stream('), (), '0.5.13', None),
    Rule('MWB009', 'class-removal', 'Delete `class ModelWorkerBatch` and `ScheduleBatch.get_model_worker_batch`; declare the one-shot override fields.', ('MWB002', 'MWB005', 'MWB008', 'MWB004', 'MWB013', 'MWB010', 'MWB011'), 'first', (b'ModelWorkerBatch', b'get_model_worker_batch'), (), '0.5.13', None),
    Rule('MWB002', 'class-references', 'Replace `ModelWorkerBatch` in annotations and type expressions with `ScheduleBatch`; collapse `Union`s; widen to `Optional` where the body tests `is None`.', ('MWB001', 'MWB010', 'MWB011'), 'first', (b'ModelWorkerBatch',), (), '0.5.13', None),
    Rule('MWB001', 'imports', 'Import `ScheduleBatch` instead of `ModelWorkerBatch` in the same block; drop duplicates and imports nothing uses.', (), 'first', (b'ModelWorkerBatch',), (), '0.5.13', None),
    Rule('MWB003', 'docstrings', 'Rewrite the data-flow line `ScheduleBatch -> ModelWorkerBatch -> ForwardBatch` in docstrings.', (), 'first', (b'ModelWorkerBatch', b'model_worker_batch'), (), '0.5.13', None),
    Rule('MWB012', 'req-pool-mirror', 'Restore/clear/build the `req_pool_indices_cpu` mirror in prepare_for_decode, merge_batch, filter_batch and batch builders.', (), 'first', (b'class ScheduleBatch(', b'class ScheduleBatch:', b'req_pool_idx for '), (b'req_pool_indices',), '0.5.13', None),
    Rule('MWB015', 'override-arguments', 'With --target-version 0.5.16 or later: an override write right before `ForwardBatch.init_new` / `forward_batch_generation` becomes its keyword argument.', ('MWB010', 'MWB011'), 'first', (b'ModelWorkerBatch', b'model_worker_batch'), (), '0.5.16', None),
    Rule('MWB016', 'worker-signatures', "A `forward_batch_generation` standing in for an SGLang worker takes the parameters the target's callers pass, and hands them on to its base or target worker.", (), 'first', (b'TpModelWorker', b'MlxTpModelWorker', b'BaseSpecWorker', b'EAGLEWorkerV2', b'StandaloneWorkerV2', b'MultiLayerEagleWorkerV2', b'FrozenKVMTPWorkerV2', b'NGRAMWorker', b'DFlashWorkerV2', b'DSparkWorkerV2', b'UnoWorkerV2', b'SpeculativeAlgorithm', b'forward_batch_embedding'), (b'forward_batch_generation',), '0.5.13', None),
    Rule('MWB017', 'removed-fields', '`batch.is_spec_v2` -> `not batch.spec_algorithm.is_none()`, `filter_batch(chunked_req_to_exclude=)` -> `reqs_to_exclude=`, and reads of other fields the target removed reported.', (), 'first', (b'is_spec_v2', b'chunked_req_to_exclude', b'can_run_dp_cuda_graph', b'can_run_dp_breakable_cuda_graph', b'all_extend_in_batch', b'num_token_non_padded_cpu', b'filter_batch'), (), '0.5.14', None),
    Rule('MWB020', 'coverage-holes', 'Rewrites nothing: reports old API (class, method, string annotation, type comment) left on a statement with no review marker (MWB151).', (), 'first', (b'ModelWorkerBatch', b'model_worker_batch'), (), '0.5.13', None),
    Rule('MWB007', 'keyword-callers', 'Rename `model_worker_batch=` keywords in calls that resolve to a function whose parameter was renamed.', ('MWB010', 'MWB011'), 'second', (b'model_worker_batch',), (), '0.5.13', None),
    Rule('MWB021', 'contract-breaks', "Rewrites nothing: with --target-version, marks each statement where the target release's contract (verify --against) still finds a break and no rule said so (MWB185).", (), 'contract', (b'# contract break',), (), '0.5.13', None),
)
# The engine's byte prefilter: a module that holds none of these is never parsed.
PREFILTER_WORDS: tuple[bytes, ...] = (b'model_worker_batch', b'ModelWorkerBatch', b'.init_new = ', b'.forward_batch_generation = ', b'batch_record_buf', b'record_batch_in_overlap', b'seq_lens.record_stream(', b'class ScheduleBatch(', b'class ScheduleBatch:', b'req_pool_idx for ', b'TpModelWorker', b'BaseSpecWorker', b'EAGLEWorkerV2', b'StandaloneWorkerV2', b'MultiLayerEagleWorkerV2', b'FrozenKVMTPWorkerV2', b'NGRAMWorker', b'DFlashWorkerV2', b'DSparkWorkerV2', b'UnoWorkerV2', b'SpeculativeAlgorithm', b'forward_batch_embedding', b'is_spec_v2', b'chunked_req_to_exclude', b'can_run_dp_cuda_graph', b'can_run_dp_breakable_cuda_graph', b'all_extend_in_batch', b'num_token_non_padded_cpu', b'filter_batch')
# fmt: on
