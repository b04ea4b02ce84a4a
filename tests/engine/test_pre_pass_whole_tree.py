"""The pre-pass reads the whole tree whatever `--include` and `--exclude` leave to migrate: a caller
in a file left out still runs, and a proof one call away must count it."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from mwbmigrate.cli import app
from mwbmigrate.engine import runner
from mwbmigrate.engine.cache import ResultCache
from mwbmigrate.engine.runner import run_rewrite
from mwbmigrate.engine.transform import TransformOptions

WORKER = """\
from sglang.srt.managers.schedule_batch import ModelWorkerBatch
from sglang.srt.managers.tp_worker import TpModelWorker


class Worker(TpModelWorker):
    def forward_batch_generation(self, model_worker_batch: ModelWorkerBatch):
        if model_worker_batch.forward_mode.is_extend():
            return self._extend_lengths(model_worker_batch)
        return None

    def _extend_lengths(self, model_worker_batch: ModelWorkerBatch):
        return model_worker_batch.extend_seq_lens
"""
# A module that names neither the old class nor its parameter: it hands the helper whatever it is given.
DEBUG = """\
def dump(worker, batch):
    return worker._extend_lengths(batch)
"""


def _helper_marked(root: Path, **filters: list[str]) -> bool:
    for name, text in {"plugin/worker.py": WORKER, "plugin/debug.py": DEBUG}.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    summary = run_rewrite([root], TransformOptions(), jobs=1, **filters)
    (worker,) = [r for r in summary.results if r.path.endswith("worker.py")]
    assert worker.rewritten is not None
    return "MWB105" in worker.rewritten


def test_a_caller_in_a_file_left_out_still_counts(tmp_path: Path) -> None:
    assert _helper_marked(tmp_path / "included", include=["plugin/worker.py"])
    assert _helper_marked(tmp_path / "excluded", exclude=["plugin/debug.py"])


def test_without_that_caller_the_gate_one_call_up_holds(tmp_path: Path) -> None:
    (tmp_path / "plugin").mkdir()
    (tmp_path / "plugin/worker.py").write_text(WORKER)
    summary = run_rewrite([tmp_path], TransformOptions(), jobs=1)
    (worker,) = summary.results
    assert worker.rewritten is not None and "MWB105" not in worker.rewritten


def test_so_does_a_run_from_the_command_line(tmp_path: Path) -> None:
    """The CLI finds the files itself and hands them to the runner: the pre-pass still reads the rest."""
    for name, text in {"plugin/worker.py": WORKER, "plugin/debug.py": DEBUG}.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    result = CliRunner().invoke(
        app, ["rewrite", str(tmp_path), "--dry-run", "--no-cache", "--no-progress", "--include", "plugin/worker.py"]
    )
    assert result.exit_code == 0, result.output
    assert "MWB105" in result.output


def test_a_warm_cache_reads_the_whole_tree_facts_back_and_follows_any_change(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The facts are kept under every file's path and bytes: a run over the same tree reads them back
    without the pre-pass, and a change in a file the migration never touches (the caller) reads the
    tree again, so the proof one call away follows it."""
    tree, cache = tmp_path / "tree", ResultCache(tmp_path / "cache")
    for name, text in {"plugin/worker.py": WORKER, "plugin/debug.py": DEBUG}.items():
        (tree / name).parent.mkdir(parents=True, exist_ok=True)
        (tree / name).write_text(text)
    passes = []
    real = runner._project_facts
    monkeypatch.setattr(runner, "_project_facts", lambda *args: passes.append(args) or real(*args))

    def marked() -> bool:
        (worker,) = [r for r in run_rewrite([tree], TransformOptions(), jobs=1, cache=cache).results if r.rewritten]
        return "MWB105" in (worker.rewritten or "")

    assert marked() and len(passes) == 1
    assert marked() and len(passes) == 1  # read back: the same facts, no pre-pass
    (tree / "plugin/debug.py").write_text("def dump(worker, batch):\n    return None\n")
    assert not marked() and len(passes) == 2


def test_a_mixin_whose_module_names_no_worker_is_adapted_through_the_worker_mixing_it_in(tmp_path: Path) -> None:
    # The mixin's module holds none of the prefilter's words: only the project index, built from the
    # other module, shows that SGLang calls its `forward_batch_generation` as a speculative worker's.
    mixin = (
        "class TracingMixin:\n"
        "    def forward_batch_generation(self, batch):\n"
        "        return super().forward_batch_generation(batch)\n"
    )
    worker = (
        "from sglang.srt.speculative.eagle_worker_v2 import EAGLEWorkerV2\n"
        "\n"
        "from plugin.mixin import TracingMixin\n"
        "\n"
        "\n"
        "class MyWorker(TracingMixin, EAGLEWorkerV2):\n"
        "    pass\n"
    )
    for name, text in {"plugin/__init__.py": "", "plugin/mixin.py": mixin, "plugin/worker.py": worker}.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    summary = run_rewrite([tmp_path], TransformOptions(), jobs=1)
    rewritten = {Path(r.path).name: r.rewritten for r in summary.results if r.rewritten is not None}
    assert rewritten == {
        "mixin.py": (
            "class TracingMixin:\n"
            "    def forward_batch_generation(self, batch, on_publish=None):\n"
            "        return super().forward_batch_generation(batch, on_publish=on_publish)\n"
        )
    }
