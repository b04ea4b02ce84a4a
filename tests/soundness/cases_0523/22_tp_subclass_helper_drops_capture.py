# expect: reported MWB159
"""A TpModelWorker subclass whose override hands the batch to a helper: on 0.5.23 the capture mode
its spec-v2 caller asks for arrives as a keyword the override does not use."""

from sglang.srt.managers.schedule_batch import ModelWorkerBatch
from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.srt.model_executor.forward_batch_info import ForwardBatch
from sglang.srt.speculative.eagle_worker_v2 import EAGLEWorkerV2
from sglang.standin import make_batch, schedule


class HelperTp(TpModelWorker):
    def forward_batch_generation(self, model_worker_batch: ModelWorkerBatch):
        return self._run(model_worker_batch)

    def _run(self, model_worker_batch: ModelWorkerBatch):
        forward_batch = ForwardBatch.init_new(model_worker_batch, self.model_runner)
        return self.model_runner.forward(forward_batch)


def main():
    worker = EAGLEWorkerV2(target_worker=HelperTp())
    return schedule(worker, make_batch(algorithm="EAGLE"))
