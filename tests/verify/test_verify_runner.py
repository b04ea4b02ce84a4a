"""`run_verify` end to end: the shipped suite on the runtime, its outputs and exit codes, and on
small SGLang-shaped trees that claim the request-pool fix (one applies it, one does not)."""

from __future__ import annotations

import io
import json
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
import torch
from rich.console import Console

from mwbmigrate.verify import runner
from mwbmigrate.verify.runner import run_verify

CUDA = torch.cuda.is_available()


def run_json(path=None, **kwargs):
    buffer = io.StringIO()
    code = run_verify(path, fmt="json", console=Console(file=buffer), **kwargs)
    return code, json.loads(buffer.getvalue())


def test_runtime_only_passes_with_json_and_junit(tmp_path):
    junit = tmp_path / "out" / "verify.xml"
    code, document = run_json(None, junit_xml=junit)
    assert code == 0, document["problems"]
    assert document["exit_code"] == 0 and document["static"] is None
    assert [impl["name"] for impl in document["implementations"]] == ["runtime"]
    groups = document["suite"]["groups"]
    for group in ("oneshot", "isolation", "ring", "streams", "req_pool"):
        assert groups[group]["runtime"].get("passed", 0) > 0, group
        assert set(groups[group]["runtime"]) == {"passed"}, group
    cuda_tests = [t for t in document["suite"]["tests"] if t["group"] == "cuda"]
    assert cuda_tests, "the CUDA tests are always collected"
    if not CUDA:
        assert all(t["outcome"] == "skipped" and t["message"] == "not run: no CUDA" for t in cuda_tests)
        assert document["gpu"]["status"].startswith("not run: no CUDA")
    root = ET.parse(junit).getroot()
    suites = {suite.get("name"): suite for suite in root}
    assert "mwbmigrate.verify.suite" in suites
    cases = list(suites["mwbmigrate.verify.suite"].iter("testcase"))
    assert len(cases) == len(document["suite"]["tests"])
    assert all(case.find("failure") is None for case in cases)


def test_gpu_require_fails_without_cuda():
    code, document = run_json(None, gpu="require", keyword="cuda or filtering")
    assert code == (0 if CUDA else 1)
    if not CUDA:
        assert any("--gpu require" in problem for problem in document["problems"])


def test_gpu_off_and_text_summary():
    buffer = io.StringIO()
    code = run_verify(None, gpu="off", keyword="ring", console=Console(file=buffer, width=120))
    text = buffer.getvalue()
    assert code == 0
    assert "Regression suite by group" in text and "Implementations tested" in text
    assert "not run: --gpu off" in text and "verify passed" in text
    assert "│ ring" in text and "│ cuda" not in text  # --gpu off leaves the CUDA tests out


def test_keyword_selecting_nothing_fails():
    code, document = run_json(None, keyword="no_such_test_anywhere")
    assert code == 1 and any("no suite test ran" in p for p in document["problems"])


def test_missing_verify_extra_is_explained(tmp_path, monkeypatch):
    (tmp_path / "m.py").write_text("x = 1\n")
    monkeypatch.setattr(runner, "_missing_extra", lambda: ["torch"])
    code, document = run_json(tmp_path)
    assert code == 1
    assert document["static"]["passed"] is True  # the stdlib part still ran
    assert "mwbmigrate[verify]" in document["suite"]["error"]
    assert document["suite"]["ran"] is False


def test_static_findings_fail_and_markers_can_be_allowed(tmp_path):
    (tmp_path / "w.py").write_text("x = 1  # mwbmigrate: MWB101 review this\n")
    code, document = run_json(tmp_path, keyword="oneshot_defaults")
    assert code == 1 and document["static"]["passed"] is False
    assert document["static"]["findings"][0]["code"] == "VFY005"
    # A folder without sglang/ is not a tree: only the runtime is tested, and that is no failure.
    assert document["tree"]["importable"] is False and document["tree"]["is_core"] is False
    code, document = run_json(tmp_path, keyword="oneshot_defaults", allow_review_markers=True)
    assert code == 0, document["problems"]


def test_invalid_options():
    with pytest.raises(ValueError):
        run_verify(None, gpu="sometimes")
    with pytest.raises(ValueError):
        run_verify(None, fmt="yaml")


# ------------------------------------------------------------------ trees claiming the fix

MIGRATED_SCHEDULE_BATCH = '''\
"""A ScheduleBatch reduced to its request-pool bookkeeping, migrated with the runtime helpers."""
from __future__ import annotations

import dataclasses
import enum
from typing import Any, List, Optional

import torch

from mwbmigrate.runtime import clear_req_pool_metadata, ensure_req_pool_indices_cpu


class ForwardMode(enum.IntEnum):
    EXTEND = 1
    DECODE = 2
    IDLE = 3


@dataclasses.dataclass
class ScheduleBatch:
    reqs: List[Any]
    device: str = "cpu"
    forward_mode: Any = None
    model_config: Any = None
    req_pool_indices: Optional[torch.Tensor] = None
    req_pool_indices_cpu: Optional[torch.Tensor] = None
    seq_lens: Optional[torch.Tensor] = None
    seq_lens_cpu: Optional[torch.Tensor] = None
    orig_seq_lens: Optional[torch.Tensor] = None
    out_cache_loc: Optional[torch.Tensor] = None
    seq_lens_sum: Optional[int] = None
    input_ids: Optional[torch.Tensor] = None
    sampling_info: Any = None
    spec_algorithm: Any = None
    hisparse_coordinator: Any = None

    def prepare_for_decode(self):
        self.forward_mode = ForwardMode.DECODE
        ensure_req_pool_indices_cpu(self)
        self.out_cache_loc = torch.arange(len(self.reqs), dtype=torch.int64)
        self.seq_lens = self.seq_lens + 1
        self.seq_lens_cpu = self.seq_lens_cpu + 1
        self.orig_seq_lens = self.orig_seq_lens + 1
        self.seq_lens_sum = None
        if self.hisparse_coordinator is not None:
            self.hisparse_coordinator.map_last_loc_to_buffer(
                self.seq_lens, self.out_cache_loc, self.req_pool_indices,
                self.seq_lens_cpu, self.req_pool_indices_cpu,
            )

    def filter_batch(self, chunked_req_to_exclude=None, keep_indices=None):
        if keep_indices is None:
            keep_indices = [i for i, r in enumerate(self.reqs) if not r.finished()]
        if not keep_indices:
            self.reqs = []
            clear_req_pool_metadata(self)
            return
        if len(keep_indices) == len(self.reqs):
            return
        keep = torch.tensor(keep_indices, dtype=torch.int64)
        self.reqs = [self.reqs[i] for i in keep_indices]
        self.req_pool_indices = self.req_pool_indices[keep]
        self.req_pool_indices_cpu = self.req_pool_indices_cpu[keep_indices]
        self.seq_lens = self.seq_lens[keep]
        self.seq_lens_cpu = self.seq_lens_cpu[keep_indices]
        self.orig_seq_lens = self.orig_seq_lens[keep]
        self.out_cache_loc = None
        self.seq_lens_sum = None

    def merge_batch(self, other):
        MERGE_FIX
        self.req_pool_indices = torch.cat([self.req_pool_indices, other.req_pool_indices])
        self.req_pool_indices_cpu = torch.cat([self.req_pool_indices_cpu, other.req_pool_indices_cpu])
        self.seq_lens = torch.cat([self.seq_lens, other.seq_lens])
        self.seq_lens_cpu = torch.cat([self.seq_lens_cpu, other.seq_lens_cpu])
        self.orig_seq_lens = torch.cat([self.orig_seq_lens, other.orig_seq_lens])
        self.out_cache_loc = None
        self.seq_lens_sum = None
        self.reqs.extend(other.reqs)
'''


def make_migrated_tree(root: Path, merge_fix: str) -> Path:
    package = root / "sglang"
    for sub in ("", "srt", "srt/managers"):
        (package / sub).mkdir(parents=True, exist_ok=True)
        (package / sub / "__init__.py").write_text("")
    source = MIGRATED_SCHEDULE_BATCH.replace("MERGE_FIX", merge_fix)
    (package / "srt" / "managers" / "schedule_batch.py").write_text(source)
    return root


FIX = "ensure_req_pool_indices_cpu(self)\n        ensure_req_pool_indices_cpu(other)"


def _tree_tests(document, group):
    return [t for t in document["suite"]["tests"] if t["impl"] == "tree" and t["group"] == group]


def test_tree_that_applies_the_fix_passes(tmp_path):
    tree = make_migrated_tree(tmp_path, FIX)
    code, document = run_json(tree, keyword="req_pool or import")
    assert code == 0, document["problems"]
    impl = {i["name"]: i for i in document["implementations"]}["tree"]
    assert impl["profile"]["req_pool"] == "fixed"
    assert impl["profile"]["isolation"] is None  # this tree has no scheduler: not applicable
    tests = _tree_tests(document, "req_pool")
    assert len(tests) >= 6 and all(t["outcome"] == "passed" for t in tests)
    assert [t["outcome"] for t in _tree_tests(document, "import")] == ["passed"]


def test_tree_that_claims_the_fix_but_misses_merge_fails(tmp_path):
    tree = make_migrated_tree(tmp_path, "pass  # forgot the merge fix")
    code, document = run_json(tree, keyword="req_pool")
    assert code == 1
    failed = sorted(t["nodeid"].split("::")[1] for t in _tree_tests(document, "req_pool") if t["outcome"] == "failed")
    assert failed == [
        "test_filter_merge_round_trip_and_idempotence[tree]",
        "test_merge_restores_missing_mirror[tree-False-False]",
        "test_merge_restores_missing_mirror[tree-False-True]",
        "test_merge_restores_missing_mirror[tree-True-False]",
    ]
    assert all(t["outcome"] == "passed" for t in document["suite"]["tests"] if t["impl"] == "runtime")


def test_tree_that_does_not_import_fails(tmp_path):
    tree = make_migrated_tree(tmp_path, FIX)
    path = tree / "sglang" / "srt" / "managers" / "schedule_batch.py"
    path.write_text(path.read_text() + "\nundefined_name_at_import_time\n")
    code, document = run_json(tree, keyword="import")
    assert code == 1
    assert document["tree"]["is_core"] and not document["tree"]["importable"]
    assert "NameError" in document["tree"]["reason"]
    [check] = _tree_tests(document, "import")
    assert check["outcome"] == "failed" and "cannot import" in check["message"]
