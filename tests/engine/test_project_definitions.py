"""A keyword a target renamed is renamed on a receiver nothing types only where the tree does not
define that method itself (outside SGLang's own modules): there the call may be the tree's own."""

from __future__ import annotations

from pathlib import Path

from mwbmigrate.engine.runner import run_rewrite
from mwbmigrate.engine.transform import TransformOptions

CALLER = (
    "from sglang.srt.managers.schedule_batch import ModelWorkerBatch\n"
    "\n"
    "\n"
    "class Scheduler:\n"
    "    def drop(self, chunked):\n"
    "        self.last_batch.filter_batch(chunked_req_to_exclude=chunked)\n"
)
OWN_BATCH = (
    "class FakeBatch:\n"
    "    def filter_batch(self, chunked_req_to_exclude=None):\n"
    "        self.dropped = chunked_req_to_exclude\n"
)


def _caller_after(root: Path, files: dict[str, str]) -> str:
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    summary = run_rewrite([root], TransformOptions(target_version="0.5.23"), jobs=1)
    (result,) = [r for r in summary.results if r.path.endswith("scheduler.py")]
    return result.rewritten if result.rewritten is not None else CALLER


def test_the_keyword_is_renamed_on_any_receiver(tmp_path):
    after = _caller_after(tmp_path, {"plugin/scheduler.py": CALLER})
    assert "self.last_batch.filter_batch(reqs_to_exclude=chunked)" in after


def test_not_where_the_tree_defines_the_method(tmp_path):
    after = _caller_after(tmp_path, {"plugin/scheduler.py": CALLER, "plugin/fakes.py": OWN_BATCH})
    assert "self.last_batch.filter_batch(chunked_req_to_exclude=chunked)" in after


def test_sglangs_own_definition_does_not_count(tmp_path):
    vendored = "class ScheduleBatch:\n    def filter_batch(self, chunked_req_to_exclude=None):\n        pass\n"
    after = _caller_after(tmp_path, {"plugin/scheduler.py": CALLER, "sglang/srt/managers/schedule_batch.py": vendored})
    assert "self.last_batch.filter_batch(reqs_to_exclude=chunked)" in after
