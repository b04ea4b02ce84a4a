# expect: reported MWB159
"""A speculative worker with no base class, kept in the fork's own registry in another module and
registered from there: it drives the target itself and never publishes."""

from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.standin import create_worker, make_batch, schedule

from . import registry  # noqa: F401 (registers MY_SPEC)


def main():
    worker = create_worker("MY_SPEC", TpModelWorker())
    return schedule(worker, make_batch(algorithm="MY_SPEC"))


# --- module: plugin/registry.py ---
from sglang.srt.speculative.spec_info import SpeculativeAlgorithm

from .spec import MySpec

WORKERS = {"MY_SPEC": MySpec}


@SpeculativeAlgorithm.register("MY_SPEC")
def _factory(server_args):
    return WORKERS["MY_SPEC"]


# --- module: plugin/spec.py ---
from sglang.srt.managers.schedule_batch import ModelWorkerBatch


class MySpec:
    def __init__(self, target_worker):
        self.target_worker = target_worker

    def forward_batch_generation(self, model_worker_batch: ModelWorkerBatch):
        return self.target_worker.forward_batch_generation(model_worker_batch)
