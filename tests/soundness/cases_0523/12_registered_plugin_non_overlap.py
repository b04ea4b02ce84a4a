# expect: same
"""The registered plugin on the non-overlap path (supports_overlap=False): pp_proxy_tensors is
handed to the target worker, and the scheduler publishes."""

from sglang.srt.managers.schedule_batch import ModelWorkerBatch
from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.srt.speculative.spec_info import SpeculativeAlgorithm
from sglang.standin import create_worker, make_batch, schedule


class MySpec:
    def __init__(self, target_worker):
        self.target_worker = target_worker

    def forward_batch_generation(self, model_worker_batch: ModelWorkerBatch):
        return self.target_worker.forward_batch_generation(model_worker_batch)


@SpeculativeAlgorithm.register("MY_SPEC", supports_overlap=False)
def _factory(server_args):
    return MySpec


def main():
    worker = create_worker("MY_SPEC", TpModelWorker())
    return schedule(worker, make_batch(algorithm="MY_SPEC"), overlap=False)
