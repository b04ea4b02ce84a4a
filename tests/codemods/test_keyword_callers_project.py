"""keyword-callers across files: a keyword is renamed where the callee resolves to the definition
another file renamed (by import, through an imported base class), and kept with a reason otherwise."""

from __future__ import annotations

from pathlib import Path

from mwbmigrate.engine.runner import merge_signatures, run_rewrite
from mwbmigrate.engine.transform import TransformOptions
from mwbmigrate.result import FileResult, FileStatus

WORKERS = """\
from sglang.srt.managers.schedule_batch import ModelWorkerBatch


class Worker:
    def run(self, model_worker_batch: ModelWorkerBatch):
        return model_worker_batch


def helper(model_worker_batch: ModelWorkerBatch):
    return model_worker_batch
"""

OTHER = """\
class Logger:
    def run(self, model_worker_batch: int = 0):
        return model_worker_batch


def helper(model_worker_batch: int = 0):
    return model_worker_batch
"""

USE = """\
import plugin.workers as w
from plugin.workers import Worker, helper

from .other import helper as other_helper


class Mine(Worker):
    def go(self, x):
        return self.run(model_worker_batch=x)


def drive(x, obj):
    Worker().run(model_worker_batch=x)
    helper(model_worker_batch=x)
    w.helper(model_worker_batch=x)
    other_helper(model_worker_batch=1)
    return obj.run(model_worker_batch=x)
"""

USE_AFTER = """\
import plugin.workers as w
from plugin.workers import Worker, helper

from .other import helper as other_helper


class Mine(Worker):
    def go(self, x):
        return self.run(batch=x)


def drive(x, obj):
    Worker().run(batch=x)
    helper(batch=x)
    w.helper(batch=x)
    # mwbmigrate: MWB147 `model_worker_batch=` kept: cannot tell whether this
    #   `.other.helper` is `helper`, which takes `batch=` now
    other_helper(model_worker_batch=1)
    # mwbmigrate: MWB147 `model_worker_batch=` kept: cannot tell whether this `run` is
    #   `Worker.run`, which takes `batch=` now
    return obj.run(model_worker_batch=x)
"""


def test_keywords_follow_the_definition_they_resolve_to(tmp_path: Path) -> None:
    package = tmp_path / "plugin"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "workers.py").write_text(WORKERS)
    (package / "other.py").write_text(OTHER)
    (package / "use.py").write_text(USE)
    summary = run_rewrite([tmp_path], TransformOptions(), jobs=1)
    by_path = {r.display_path: r for r in summary.results}
    assert by_path["plugin/use.py"].rewritten == USE_AFTER
    assert by_path["plugin/other.py"].status is FileStatus.UNCHANGED


def test_signatures_are_merged_with_their_module() -> None:
    results = [
        FileResult(
            "/t/plugin/workers.py",
            "plugin/workers.py",
            FileStatus.CHANGED,
            renamed_signatures=(("Worker.run", "model_worker_batch", "batch"),),
        ),
        FileResult(
            "/t/plugin/__init__.py",
            "plugin/__init__.py",
            FileStatus.CHANGED,
            renamed_signatures=(("helper", "mwb", "schedule_batch"),),
        ),
    ]
    signatures = merge_signatures(results)
    assert [
        (s.module[-2:], s.qualname) for s in signatures.defined_at(("/", "t", "plugin", "workers"), "Worker.run")
    ] == [(("plugin", "workers"), "Worker.run")]
    assert [s.new for s in signatures.imported("plugin.workers.Worker.run", "/t/plugin/use.py")] == ["batch"]
    assert [s.new for s in signatures.imported(".workers.Worker.run", "/t/plugin/use.py")] == ["batch"]
    assert signatures.imported("..workers.Worker.run", "/t/plugin/sub/use.py") != []
    assert signatures.imported("other.workers.Worker.run", "/t/plugin/use.py") == []
    assert [s.new for s in signatures.imported("plugin.helper", "/t/use.py")] == ["schedule_batch"]
    assert signatures.old_names() >= {"model_worker_batch", "mwb"}
