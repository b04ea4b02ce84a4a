"""`rewrite --target-version 0.5.23` on a fork: the contract step marks only what the migration owes.

The fork is built here from SGLang 0.5.12.post1's wheel (never committed): its batch, forward batch
and worker modules and its CI helpers, as a fork vendors them, plus what a fork adds:

* its own helper in its own SGLang (`register_fork_ci` in `sglang/test/ci/ci_register.py`);
* a plugin worker on the old API, which the migration changes, that also writes a batch field no
  release ever had (`batch.fork_tenant`) and calls a batch method with a keyword 0.5.23 dropped;
* tests and a benchmark that use APIs 0.5.23 changed, and that the migration never touches: the
  fork's own helper, `initialize_model_parallel`'s dropped keywords, a batch method's dropped keyword,
  a worker base class 0.5.14 renamed.

At 0.5.23 the run changes the files its migration changes at 0.5.23 and no other; no MWB185 stands
outside them; the report counts the rest, by cause; and neither the fork's helper nor its own batch
field is a break at all.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from mwbmigrate.engine.runner import run_rewrite
from mwbmigrate.engine.transform import TransformOptions
from mwbmigrate.result import RunSummary
from mwbmigrate.verify.against import breaks_by_file, check_against, check_rewritten
from mwbmigrate.verify.release import locate_release
from sglang_corpus import OLD_VERSION, CorpusUnavailable, sglang_tree

pytestmark = pytest.mark.corpus

RELEASE = "0.5.23"
# A part of the tree, to keep the suite's cost down: modules the migration changes (the batch's,
# the forward batch's, the worker's) and the CI helpers the fork adds to; the rest of SGLang resolves
# against the release.
VENDORED = (
    "sglang/__init__.py",
    "sglang/version.py",
    "sglang/srt/managers/schedule_batch.py",
    "sglang/srt/managers/tp_worker.py",
    "sglang/srt/model_executor/forward_batch_info.py",
    "sglang/test/__init__.py",
    "sglang/test/ci",
)
FORK_HELPER = '''

def register_fork_ci(est_time: float, suite: str) -> None:
    """The fork's own CI registry: no release has it, and a rebase keeps it."""
'''
PLUGIN = """from sglang.srt.managers.schedule_batch import ModelWorkerBatch, ScheduleBatch
from sglang.srt.model_executor.forward_batch_info import ForwardBatch


class ForkWorker:
    def forward_batch_generation(self, model_worker_batch: ModelWorkerBatch):
        forward_batch = ForwardBatch.init_new(model_worker_batch, self.model_runner)
        return self.model_runner.forward(forward_batch)

    def step(self, batch: ScheduleBatch, tenant: str):
        batch.fork_tenant = tenant
        batch.filter_batch(v1_spec_info_filtered=True)
        return self.forward_batch_generation(batch.get_model_worker_batch())
"""
TEST_CI = """from sglang.test.ci.ci_register import register_fork_ci

register_fork_ci(est_time=10, suite="fork-small")
"""
TEST_PARALLEL = """from sglang.srt.distributed.parallel_state import initialize_model_parallel
from sglang.srt.managers.schedule_batch import ScheduleBatch


def test_groups():
    initialize_model_parallel(tensor_model_parallel_size=2)


def test_filter(batch: ScheduleBatch):
    batch.filter_batch(v1_spec_info_filtered=True)
"""
BENCHMARK = """from sglang.srt.speculative.base_spec_worker import BaseDraftWorker

print(BaseDraftWorker)
"""
DRIFT = {"tests/test_fork_ci.py", "tests/test_parallel.py", "benchmarks/bench_eagle.py"}


@pytest.fixture(scope="module")
def fork(tmp_path_factory: pytest.TempPathFactory) -> Path:
    try:
        old = sglang_tree(OLD_VERSION)
    except CorpusUnavailable as error:
        pytest.fail(f"wheel download failed: {error}")
    root = tmp_path_factory.mktemp("fork") / "fork"
    for part in VENDORED:
        source, target = old / part, root / "python" / part
        if source.is_dir():
            shutil.copytree(source, target)
        elif source.exists():
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy(source, target)
    registry = root / "python/sglang/test/ci/ci_register.py"
    registry.write_text(registry.read_text() + FORK_HELPER)
    for name, text in {
        "python/fork_plugin/worker.py": PLUGIN,
        "tests/test_fork_ci.py": TEST_CI,
        "tests/test_parallel.py": TEST_PARALLEL,
        "benchmarks/bench_eagle.py": BENCHMARK,
    }.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    return root


def _run(root: Path, options: TransformOptions, contract: bool) -> RunSummary:
    check = None
    if contract:
        release = locate_release(str(sglang_tree(RELEASE)))
        check = lambda texts, checked: breaks_by_file(check_rewritten(root, release, texts, checked))  # noqa: E731
    return run_rewrite([root], options, jobs=1, contract=check)


def _changed(summary: RunSummary, root: Path) -> dict[str, str]:
    return {Path(r.path).relative_to(root).as_posix(): r.rewritten or "" for r in summary.changed}


@pytest.fixture(scope="module")
def runs(fork: Path) -> dict[str, RunSummary]:
    return {
        "default": _run(fork, TransformOptions(), contract=False),
        "contract": _run(fork, TransformOptions(target_version=RELEASE), contract=True),
    }


def test_the_contract_step_changes_no_file_the_migration_does_not(fork, runs):
    with_contract = _changed(runs["contract"], fork)
    default = _changed(runs["default"], fork)
    assert not DRIFT & set(with_contract)
    # The files whose migration differs at 0.5.23 are those with a code 0.5.23's rules write
    # (its keywords), never one the contract step alone changed.
    assert set(default) <= set(with_contract)
    assert "python/fork_plugin/worker.py" in default
    marked = sorted(path for path, text in with_contract.items() if "MWB185" in text)
    assert marked == ["python/fork_plugin/worker.py"]


PLUGIN_AT_0523 = """from sglang.srt.managers.schedule_batch import ScheduleBatch
from sglang.srt.model_executor.forward_batch_info import CaptureHiddenMode, ForwardBatch
from mwbmigrate.runtime import worker_batch_capture_mode, worker_batch_snapshot
from typing import Optional


class ForkWorker:
    def forward_batch_generation(
        self,
        batch: ScheduleBatch,
        *,
        capture_hidden_mode: Optional[CaptureHiddenMode] = None,
    ):
        forward_batch = ForwardBatch.init_new(
            batch,
            self.model_runner,
            capture_hidden_mode=worker_batch_capture_mode(batch, capture_hidden_mode),
            return_hidden_states_before_norm=False,
        )
        return self.model_runner.forward(forward_batch)

    def step(self, batch: ScheduleBatch, tenant: str):
        batch.fork_tenant = tenant
        # mwbmigrate: MWB185 SGLang 0.5.23's
        #   ScheduleBatch.filter_batch(reqs_to_exclude=..., keep_indices=...) does not
        #   take the keyword `v1_spec_info_filtered`: `batch.filter_batch(...)`
        batch.filter_batch(v1_spec_info_filtered=True)
        return self.forward_batch_generation(worker_batch_snapshot(batch))
"""


def test_the_owed_break_is_marked_on_its_statement(fork, runs):
    # The batch method's dropped keyword, on the migrated API in a file the migration changes, is
    # marked; the fork's own field (`fork_tenant`, in no release) is not.
    assert _changed(runs["contract"], fork)["python/fork_plugin/worker.py"] == PLUGIN_AT_0523
    assert runs["contract"].contract_breaks == 1


def test_the_rest_is_counted_by_cause(runs):
    # tests/test_parallel.py: `initialize_model_parallel`'s keyword, a batch method's keyword (in a
    # file the migration does not change); benchmarks/bench_eagle.py: a renamed worker base. The
    # fork's own helper (tests/test_fork_ci.py) and its own batch field are no break.
    assert runs["contract"].contract_elsewhere == {"call": 2, "import": 1}
    note_free = runs["default"].contract_elsewhere
    assert note_free == {}


def test_verify_holds_no_fork_addition_against_the_release(fork):
    report = check_against(fork, locate_release(str(sglang_tree(RELEASE))))
    found = [m.render() for m in report.mismatches]
    assert not [line for line in found if "register_fork_ci" in line]
    assert [line for line in found if "bench_eagle.py" in line and "BaseDraftWorker" in line]
    assert [line for line in found if "test_parallel.py" in line and "initialize_model_parallel" in line]
