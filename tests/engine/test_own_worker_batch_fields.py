"""A fork's own `ModelWorkerBatch` fields: a kept snapshot holds those its `get_model_worker_batch()`
copied from the batch, and the ones it computed are reported on every kept snapshot (MWB183). Its
own `ScheduleBatch` fields that the old method copied are judged against that class, not 0.5.13's."""

from __future__ import annotations

import dataclasses
import enum
import sys
import types
from pathlib import Path

from mwbmigrate.analysis.tree_facts import OwnWorkerBatchFields, own_worker_batch_fields
from mwbmigrate.engine.runner import run_rewrite
from mwbmigrate.engine.transform import TransformOptions
from mwbmigrate.runtime import worker_batch_snapshot

SCHEDULE_BATCH = """import dataclasses


class ScheduleBatch:
    token_type_ids: list = None
    dimensions: list = None

    def get_model_worker_batch(self, seq_lens_cpu_cache=None):
        return ModelWorkerBatch(
            forward_mode=self.forward_mode,
            delay_sample_launch=self.delay_sample_launch,
            tenant=self.owner.tenant,
            token_type_ids=self.token_type_ids,
            dimensions=[d or 0 for d in self.dimensions],
        )


@dataclasses.dataclass
class ModelWorkerBatch:
    forward_mode: int
    delay_sample_launch: bool = False
    tenant: str = None
"""

RUNNER = """from sglang.srt.managers.schedule_batch import ModelWorkerBatch, ScheduleBatch


class OverlapRunner:
    def step(self, batch: ScheduleBatch):
        model_worker_batch = batch.get_model_worker_batch()
        batch.prepare_for_decode()
        return self.worker.forward_batch_generation(model_worker_batch)
"""

RUNNER_AFTER = """from sglang.srt.managers.schedule_batch import ScheduleBatch
from mwbmigrate.runtime import worker_batch_snapshot


class OverlapRunner:
    def step(self, batch: ScheduleBatch):
        # mwbmigrate: MWB183 the tree's own `ModelWorkerBatch.tenant` is computed by its
        #   `get_model_worker_batch()` (`self.owner.tenant`), which the kept snapshot
        #   does not hold
        worker_batch = worker_batch_snapshot(batch, fork_fields=("delay_sample_launch",))
        batch.prepare_for_decode()
        return self.worker.forward_batch_generation(worker_batch)
"""


def test_the_forks_own_fields_are_read_from_its_schedule_batch_module() -> None:
    assert own_worker_batch_fields(SCHEDULE_BATCH.encode()) == OwnWorkerBatchFields(
        copied=("delay_sample_launch",),
        computed=(("tenant", "self.owner.tenant"),),
        batch_copies=("token_type_ids",),  # `dimensions` is computed, not copied
    )
    assert own_worker_batch_fields(b"class ScheduleBatch:\n    pass\n") == OwnWorkerBatchFields()


READER = """from sglang.srt.managers.schedule_batch import ModelWorkerBatch


def embed(model_worker_batch: ModelWorkerBatch):
    return model_worker_batch.token_type_ids, model_worker_batch.dimensions
"""


def test_a_field_the_trees_batch_declares_and_the_old_method_copied_is_not_missing(tmp_path: Path) -> None:
    # 0.5.13 removed `token_type_ids` and `dimensions` from its ScheduleBatch (MWB136 on a tree that
    # has no batch of its own); this tree's batch declares `token_type_ids`, which its old method
    # copied: reading it on the batch reads what the old object held. `dimensions` it computed.
    managers = tmp_path / "python" / "sglang" / "srt" / "managers"
    managers.mkdir(parents=True)
    (managers / "schedule_batch.py").write_text(SCHEDULE_BATCH)
    (tmp_path / "plugin.py").write_text(READER)
    summary = run_rewrite([tmp_path], TransformOptions(), jobs=1)
    (reader,) = [r for r in summary.results if r.display_path == "plugin.py"]
    assert [(i.code, i.message.split(":")[0]) for i in reader.review_items if i.code == "MWB136"] == [
        ("MWB136", "`dimensions`")
    ]
    alone = tmp_path / "alone"
    alone.mkdir()
    (alone / "plugin.py").write_text(READER)
    (result,) = run_rewrite([alone], TransformOptions(), jobs=1).results
    assert sorted(i.message.split(":")[0] for i in result.review_items if i.code == "MWB136") == [
        "`dimensions`",
        "`token_type_ids`",
    ]


def test_a_kept_snapshot_holds_the_forks_copied_fields_and_reports_the_computed_ones(tmp_path: Path) -> None:
    managers = tmp_path / "python" / "sglang" / "srt" / "managers"
    managers.mkdir(parents=True)
    (managers / "schedule_batch.py").write_text(SCHEDULE_BATCH)
    (managers / "overlap_runner.py").write_text(RUNNER)
    summary = run_rewrite([tmp_path], TransformOptions(), jobs=1)
    (runner,) = [r for r in summary.results if r.display_path.endswith("overlap_runner.py")]
    assert runner.rewritten == RUNNER_AFTER


class _Mode(enum.Enum):
    NULL = 0
    EXTEND = 1

    def is_decode_or_idle(self) -> bool:
        return False


@dataclasses.dataclass
class _ForkBatch:
    forward_mode: _Mode = _Mode.EXTEND
    reqs: list[object] = dataclasses.field(default_factory=list)
    seq_lens_cpu: list[int] = dataclasses.field(default_factory=lambda: [3])
    extend_lens: list[int] = dataclasses.field(default_factory=lambda: [3])
    prefix_lens: list[int] = dataclasses.field(default_factory=lambda: [0])
    sampling_info: object = None
    has_grammar: bool = False
    return_hidden_states: bool = False
    spec_info: object = None
    delay_sample_launch: bool = True


def test_the_runtime_holds_a_forks_fields_as_fields_of_the_old_object(monkeypatch) -> None:
    module = types.ModuleType("sglang.srt.model_executor.forward_batch_info")
    module.CaptureHiddenMode = _Mode  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, module.__name__, module)
    snapshot = worker_batch_snapshot(_ForkBatch(), fork_fields=("delay_sample_launch",))
    assert snapshot.delay_sample_launch is True
    assert [f.name for f in dataclasses.fields(snapshot)][-1] == "delay_sample_launch"
    assert dataclasses.asdict(snapshot)["delay_sample_launch"] is True
    again = worker_batch_snapshot(_ForkBatch(delay_sample_launch=False), fork_fields=("delay_sample_launch",))
    assert type(again) is type(snapshot) and again.delay_sample_launch is False
    assert not hasattr(worker_batch_snapshot(_ForkBatch()), "delay_sample_launch")
