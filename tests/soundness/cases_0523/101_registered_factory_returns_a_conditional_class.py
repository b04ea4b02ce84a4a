# expect: same
"""A plugin factory (plugin/registry.py) returns one of two classes of plugin/spec.py by a
conditional expression; neither has an SGLang base."""

from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.standin import create_worker, make_batch, schedule

from . import registry  # noqa: F401


def main():
    worker = create_worker("MY_SPEC", TpModelWorker())
    return schedule(worker, make_batch(algorithm="MY_SPEC"), overlap=False)


# --- module: plugin/registry.py ---
from sglang.srt.speculative.spec_info import SpeculativeAlgorithm

from .spec import FastSpec, SlowSpec


@SpeculativeAlgorithm.register("MY_SPEC")
def _factory(server_args):
    return FastSpec if server_args is None else SlowSpec


# --- module: plugin/spec.py ---
from sglang.srt.managers.schedule_batch import ModelWorkerBatch
from sglang.standin import record


class FastSpec:
    def __init__(self, target_worker):
        self.target_worker = target_worker

    def forward_batch_generation(self, model_worker_batch: ModelWorkerBatch):
        record("fast", model_worker_batch.seq_lens)
        return self.target_worker.forward_batch_generation(model_worker_batch)


class SlowSpec(FastSpec):
    pass
