"""`mwbmigrate verify --against` on the real SGLang releases (wheels downloaded into `.cache/`).

* every release checked against itself: no mismatch (SGLang's own trees are the false-positive
  test);
* 0.5.13's tree checked against 0.5.23: every break `docs/target-versions.md` predicts for the
  classes 0.5.13 has;
* `examples/fork` migrated to the 0.5.13 shape, then checked against 0.5.23: fails, naming the worker
  signatures.

CI checks 0.5.13 and 0.5.23 (about 35 s cold on one core: each release is parsed once, its facts kept
in `.cache/mwbmigrate/` for the next run); `MWBMIGRATE_VERIFY_ALL_RELEASES=1` checks all thirteen
releases from 0.5.13 to 0.5.23 (about 3.5 minutes cold).
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from mwbmigrate.analysis.target_versions import TARGET_VERSIONS
from mwbmigrate.cli import app
from mwbmigrate.verify.against import AgainstReport, check_against
from mwbmigrate.verify.release import Release
from sglang_corpus import REPO_ROOT, CorpusUnavailable, sglang_tree

pytestmark = pytest.mark.corpus

ALL_RELEASES = TARGET_VERSIONS  # every release on PyPI from 0.5.13 to 0.5.23
CI_RELEASES = ("0.5.13", "0.5.23")
RELEASES = ALL_RELEASES if os.environ.get("MWBMIGRATE_VERIFY_ALL_RELEASES") else CI_RELEASES


@pytest.fixture(autouse=True)
def facts_cache(monkeypatch):
    # A release's facts are kept between runs in the repository's git-ignored cache, not the user's.
    monkeypatch.setenv("MWBMIGRATE_CACHE_DIR", str(REPO_ROOT / ".cache" / "mwbmigrate"))


_REPORTS: dict[tuple[str, str], AgainstReport] = {}


def release_tree(version: str) -> Path:
    try:
        return sglang_tree(version)
    except CorpusUnavailable as error:
        pytest.fail(f"corpus download failed: {error}")


def report(tree: str, release: str) -> AgainstReport:
    """Each pair is checked once per run (the tests below read the same report)."""
    key = (tree, release)
    if key not in _REPORTS:
        _REPORTS[key] = check_against(release_tree(tree), Release(release_tree(release), release))
    return _REPORTS[key]


@pytest.mark.parametrize("version", RELEASES)
def test_a_release_checked_against_itself_has_no_mismatch(version):
    checked = report(version, version)
    assert [m.render() for m in checked.mismatches] == []
    counts = checked.counts
    assert counts["worker_methods"] > 150 and counts["contract_calls"] > 100
    assert counts["calls"] > 30_000 and counts["attribute_uses"] > 3_000 and counts["files"] > 2_000
    assert checked.unparsed == []


def _worker_breaks(checked: AgainstReport) -> set[tuple[str, str, str]]:
    """(file, method, keyword) of every worker-signature mismatch."""
    found = set()
    for mismatch in checked.mismatches:
        if mismatch.kind == "worker-signature":
            method = mismatch.message.split("(", 1)[0]
            head = mismatch.message.split(": `", 1)[0]
            reason = "positional" if "positional argument" in head else head.split("`")[1]
            found.add((_relative(mismatch.path), method, reason))
    return found


def test_0_5_13_against_0_5_23_reports_the_worker_breaks_the_table_predicts():
    checked = report("0.5.13", "0.5.23")
    assert _worker_breaks(checked) == {
        # spec-v2 workers: `grammar_barrier` (0.5.17) and `pp_proxy_tensors` (0.5.19/0.5.21)
        ("speculative/eagle_worker_v2.py", "EAGLEWorkerV2.forward_batch_generation", "grammar_barrier"),
        ("speculative/eagle_worker_v2.py", "EAGLEWorkerV2.forward_batch_generation", "pp_proxy_tensors"),
        (
            "speculative/multi_layer_eagle_worker_v2.py",
            "MultiLayerEagleWorkerV2.forward_batch_generation",
            "grammar_barrier",
        ),
        (
            "speculative/multi_layer_eagle_worker_v2.py",
            "MultiLayerEagleWorkerV2.forward_batch_generation",
            "pp_proxy_tensors",
        ),
        # NGRAMWorker: `on_publish` (0.5.14) and `pp_proxy_tensors` (0.5.19)
        ("speculative/ngram_worker.py", "NGRAMWorker.forward_batch_generation", "on_publish"),
        ("speculative/ngram_worker.py", "NGRAMWorker.forward_batch_generation", "pp_proxy_tensors"),
        # TpModelWorker as the spec workers' target: `capture_hidden_mode` (0.5.16), `return_kv_loc_plan` (0.5.22)
        ("managers/tp_worker.py", "TpModelWorker.forward_batch_generation", "capture_hidden_mode"),
        ("managers/tp_worker.py", "TpModelWorker.forward_batch_generation", "return_kv_loc_plan"),
        ("hardware_backend/mlx/tp_worker.py", "MlxTpModelWorker.forward_batch_generation", "capture_hidden_mode"),
        # Methods the release's own worker code calls on `self`
        ("speculative/eagle_worker_v2.py", "EAGLEWorkerV2.verify", "grammar_barrier"),
        ("speculative/eagle_worker_v2.py", "EAGLEWorkerV2.verify", "pp_proxy_tensors"),
        ("speculative/multi_layer_eagle_worker_v2.py", "MultiLayerEagleWorkerV2.verify", "grammar_barrier"),
        ("managers/tp_worker.py", "TpModelWorker._forward_batch_generation_dllm", "positional"),
        ("hardware_backend/mlx/tp_worker.py", "MlxTpModelWorker.finalize_mlx_result", "decode"),
        ("hardware_backend/mlx/tp_worker.py", "MlxTpModelWorker.finalize_mlx_result", "mode"),
        ("hardware_backend/mlx/tp_worker.py", "MlxTpModelWorker.finalize_mlx_result", "reqs"),
    }


def _relative(path: str) -> str:
    """A mismatch's path in 0.5.13's tree, from `sglang/srt/` (or `sglang/`)."""
    relative = Path(path).relative_to(release_tree("0.5.13") / "sglang").as_posix()
    return relative.removeprefix("srt/")


def _lines(checked: AgainstReport, kind: str) -> list[tuple[str, int, str]]:
    return [(_relative(m.path), m.line, m.message) for m in checked.mismatches if m.kind == kind]


def test_0_5_13_against_0_5_23_reports_the_batch_attributes_and_calls_that_break():
    checked = report("0.5.13", "0.5.23")
    attributes = {
        (path, message.split("`")[1], message.split("`")[2].split()[0])
        for path, _, message in _lines(checked, "attribute")
    }
    assert {
        ("managers/scheduler.py", "batch.is_spec_v2", "reads"),  # gone in 0.5.14
        ("managers/overlap_utils.py", "batch.is_spec_v2", "reads"),
        ("model_executor/forward_batch_info.py", "batch.all_extend_in_batch", "reads"),  # gone in 0.5.16
        ("model_executor/forward_batch_info.py", "batch.capture_hidden_mode", "writes"),  # one-shot fields, 0.5.16
        ("model_executor/forward_batch_info.py", "batch.seq_lens_cpu_cache", "writes"),
        ("model_executor/forward_batch_info.py", "batch.return_hidden_states_before_norm", "writes"),
        ("model_executor/forward_batch_info.py", "batch.can_run_dp_cuda_graph", "reads"),  # gone in 0.5.19
        ("model_executor/forward_batch_info.py", "batch.can_run_dp_breakable_cuda_graph", "reads"),
        ("managers/scheduler_components/dp_attn.py", "batch.can_run_dp_cuda_graph", "writes"),
        ("model_executor/cuda_graph_runner.py", "forward_batch.can_run_dp_cuda_graph", "reads"),
        ("speculative/eagle_worker_v2.py", "batch.capture_hidden_mode", "writes"),
    } <= attributes
    calls = _lines(checked, "call")
    filter_batch = {
        m.split("keyword")[1].split("`")[1] for p, _, m in calls if p == "managers/scheduler.py" and "filter_batch" in m
    }
    assert filter_batch == {"chunked_req_to_exclude", "v1_spec_info_filtered"}  # 0.5.22, 0.5.14
    init_new = [
        p
        for p, _, m in calls
        if m.startswith("SGLang 0.5.23's ForwardBatch.init_new") and "requires `return_hidden_states_before_norm`" in m
    ]
    assert {
        "managers/tp_worker.py",
        "speculative/eagle_worker_v2.py",
        "speculative/multi_layer_eagle_worker_v2.py",
    } <= set(init_new)
    assert any("ScheduleBatch.retract_decode() takes 0 positional arguments, not 1" in m for _, _, m in calls)  # 0.5.19


def test_the_example_fork_migrated_to_0_5_13_breaks_against_0_5_23(tmp_path):
    fork = tmp_path / "fork"
    shutil.copytree(REPO_ROOT / "examples" / "fork", fork)
    migrated = CliRunner().invoke(
        app, ["rewrite", str(fork), "--target-version", "0.5.13", "--no-progress", "--no-cache"]
    )
    assert migrated.exit_code == 0, migrated.output
    result = CliRunner().invoke(app, ["verify", str(fork), "--against", str(release_tree("0.5.23"))])
    assert result.exit_code == 1, result.output
    lines = result.output.splitlines()
    found = [
        (line.split(": ", 1)[0].rsplit("/", 1)[-1], line.split(": ")[1], line.split("`")[1]) for line in lines[1:-1]
    ]
    worker = "MyTpWorker.forward_batch_generation"
    # The shaped TpModelWorker gained what 0.5.13's callers pass (worker-signatures); what later
    # releases pass it is missing.
    assert found == [
        ("custom_worker.py:21", "worker-signature", "capture_hidden_mode"),
        ("custom_worker.py:21", "worker-signature", "return_kv_loc_plan"),
        ("custom_worker.py:21", "worker-signature", "skip_attn_backend_init"),
        ("custom_worker.py:29", "call", "return_hidden_states_before_norm"),
        ("custom_worker.py:39", "call", "return_hidden_states_before_norm"),
        ("spec_plugin.py:19", "attribute", "batch.capture_hidden_mode"),
        ("spec_plugin.py:25", "attribute", "batch.capture_hidden_mode"),
        ("spec_plugin.py:26", "call", "return_hidden_states_before_norm"),
        ("spec_plugin.py:32", "attribute", "batch.extend_seq_lens"),
    ]
    assert all(worker in line for line in lines[1:4])
    # hardware_backend.py's override stays in its kept snapshot (`worker_batch_snapshot(batch,
    # seq_lens_cpu_cache=...)`), which every release reads as `seq_lens_cpu`: no mismatch there.
    assert lines[-1].startswith("9 mismatches (3 attribute, 3 call, 3 worker-signature)")


@pytest.mark.parametrize("target", ["0.5.23", "latest"])
def test_the_example_fork_migrated_to_0_5_23_meets_it_but_where_a_marker_says_otherwise(tmp_path, target):
    """Every call SGLang 0.5.23 makes into the fork binds, and every call and attribute of the fork
    is one the release has, except on the one statement the migration marked as a hazard (a field of
    the old object on a `Union`, MWB114). The override 0.5.23 has no successor for stays in the
    snapshot kept in code, which 0.5.23 reads as `seq_lens_cpu`."""
    fork = tmp_path / "fork"
    shutil.copytree(REPO_ROOT / "examples" / "fork", fork)
    migrated = CliRunner().invoke(
        app, ["rewrite", str(fork), "--target-version", target, "--no-progress", "--no-cache"]
    )
    assert migrated.exit_code == 0, migrated.output
    strict = CliRunner().invoke(app, ["verify", str(fork), "--against", str(release_tree("0.5.23"))])
    assert strict.exit_code == 1, strict.output
    found = [
        (line.split(": ", 1)[0].rsplit("/", 1)[-1], line.split(": ")[1]) for line in strict.output.splitlines()[1:-1]
    ]
    assert found == [("spec_plugin.py:37", "attribute")]
    allowed = CliRunner().invoke(
        app, ["verify", str(fork), "--against", str(release_tree("0.5.23")), "--allow-review-markers"]
    )
    assert allowed.exit_code == 0, allowed.output
    assert allowed.output.count("reported by a review marker, not counted: ") == 1
