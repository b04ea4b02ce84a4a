"""Comments between the tokens of what a rewrite rebuilds or deletes, above an `else`/`elif` that
goes, and prose that reads like a tool's directive: each stays, as a line of its own where the code
it was in no longer holds it (codemods/base.py `with_comments_kept`, `kept_lines`, `kept_branch`)."""

from __future__ import annotations

import pytest
from test_comments_kept import LIVE, _migrate, lost_comments

from mwbmigrate.engine.transform import TransformOptions

DEFAULT = TransformOptions()
COLLAPSE = TransformOptions(collapse_compat=True)
OLD_AND_NEW = "from sglang.srt.managers.schedule_batch import ModelWorkerBatch, ScheduleBatch\n\n\n"
NEW = "from sglang.srt.managers.schedule_batch import ScheduleBatch\n\n\n"

CASES = {
    "inside-a-deleted-snapshot-call": (
        LIVE,
        "def run(self, batch):\n"
        "    model_worker_batch = batch.get_model_worker_batch(  # inside call\n"
        "    )\n"
        "    return self.worker.forward_batch_generation(model_worker_batch)\n",
        "def run(self, batch):\n    # inside call\n    return self.worker.forward_batch_generation(batch)\n",
    ),
    "inside-a-rewritten-field-read": (
        DEFAULT,
        "def describe(model_worker_batch, adapter):\n"
        "    return (\n"
        "        model_worker_batch  # receiver\n"
        "        .lora_ids\n"
        "    )\n",
        "def describe(batch, adapter):\n"
        "    # receiver\n"
        "    # mwbmigrate: MWB149 `lora_ids` returned: now a new list built from `reqs` at each\n"
        "    #   read, so a change made through it no longer reaches the batch or a later read\n"
        "    return [req.lora_id for req in batch.reqs]\n",
    ),
    "inside-a-collapsed-union-annotation": (
        DEFAULT,
        "from typing import Union\n\n"
        + OLD_AND_NEW
        + "def forward(batch: Union[\n    ScheduleBatch,  # the live one\n    ModelWorkerBatch,\n]):\n    return batch\n",
        NEW + "# the live one\ndef forward(batch: ScheduleBatch):\n    return batch\n",
    ),
    "inside-a-narrowed-isinstance-tuple": (
        DEFAULT,
        OLD_AND_NEW
        + "def f(batch):\n    return isinstance(batch, (\n        ScheduleBatch,  # live\n        ModelWorkerBatch,\n    ))\n",
        NEW + "def f(batch):\n    # live\n    return isinstance(batch, ScheduleBatch)\n",
    ),
    "inside-the-test-of-the-branch-that-stays": (
        DEFAULT,
        OLD_AND_NEW + "def f(batch: ScheduleBatch):\n"
        "    if (not isinstance(batch, ModelWorkerBatch)  # new side\n"
        "    ):\n"
        "        return 1\n",
        NEW + "def f(batch: ScheduleBatch):\n    # new side\n    return 1\n",
    ),
    "above-an-else-that-goes": (
        DEFAULT,
        OLD_AND_NEW + "def f(x: ScheduleBatch):\n"
        "    if not isinstance(x, ModelWorkerBatch):\n"
        "        return 1\n"
        "    # above else\n"
        "    else:\n"
        "        return 2\n",
        NEW + "def f(x: ScheduleBatch):\n    return 1\n    # above else\n",
    ),
    "above-an-elif-that-goes-then-an-else": (
        DEFAULT,
        OLD_AND_NEW + "def f(x: ScheduleBatch):\n"
        "    if not isinstance(x, ModelWorkerBatch):\n"
        "        y = 1\n"
        "    # above elif\n"
        "    elif x is None:\n"
        "        y = 0\n"
        "    # above else\n"
        "    else:\n"
        "        y = 2\n"
        "    return y\n",
        NEW + "def f(x: ScheduleBatch):\n    y = 1\n    # above elif\n    # above else\n    return y\n",
    ),
    "above-the-else-of-a-collapsed-gate": (
        COLLAPSE,
        "def run_batch(self, batch):\n"
        '    if not hasattr(batch, "get_model_worker_batch"):\n'
        "        wb = batch\n"
        "    # above else\n"
        "    else:\n"
        "        wb = batch.get_model_worker_batch()\n"
        "    return self.worker.forward_batch_generation(wb)\n",
        "from mwbmigrate.runtime import worker_batch_snapshot\n"
        "\n"
        "def run_batch(self, batch):\n"
        "    wb = worker_batch_snapshot(batch)\n"
        "    # above else\n"
        "    return self.worker.forward_batch_generation(wb)\n",
    ),
    "prose-that-starts-like-a-type-comment": (
        LIVE,
        "def run(self, batch):\n"
        "    model_worker_batch = batch.get_model_worker_batch()  # Type: the worker's snapshot\n"
        "    return self.worker.forward_batch_generation(model_worker_batch)\n",
        "def run(self, batch):\n    # Type: the worker's snapshot\n    return self.worker.forward_batch_generation(batch)\n",
    ),
    "a-hash-inside-a-comment-keeps-its-spacing": (
        LIVE,
        "def run(self, batch):\n"
        "    model_worker_batch = batch.get_model_worker_batch()  # see #123 for why\n"
        "    return self.worker.forward_batch_generation(model_worker_batch)\n",
        "def run(self, batch):\n    # see #123 for why\n    return self.worker.forward_batch_generation(batch)\n",
    ),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_the_comment_stays(name: str) -> None:
    options, before, after = CASES[name]
    out = _migrate(before, options=options)
    assert out == after, out
    assert lost_comments(before, out) == []


def test_a_directive_ending_a_deleted_line_goes_with_it() -> None:
    before = (
        "def run(self, batch):\n"
        "    model_worker_batch = batch.get_model_worker_batch()  # type: ignore[attr-defined]  # why\n"
        "    return self.worker.forward_batch_generation(model_worker_batch)\n"
    )
    assert _migrate(before, options=LIVE) == (
        "def run(self, batch):\n    # why\n    return self.worker.forward_batch_generation(batch)\n"
    )
