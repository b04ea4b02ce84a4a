# expect: reported MWB159
"""A custom EAGLE worker that drives the target itself: on 0.5.23 nothing publishes its results."""

from sglang.srt.managers.schedule_batch import ModelWorkerBatch
from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.srt.model_executor.forward_batch_info import CaptureHiddenMode
from sglang.srt.speculative.eagle_worker_v2 import EAGLEWorkerV2
from sglang.standin import make_batch, schedule


class MyEagle(EAGLEWorkerV2):
    def forward_batch_generation(self, model_worker_batch: ModelWorkerBatch):
        model_worker_batch.capture_hidden_mode = CaptureHiddenMode.LAST
        return self.target_worker.forward_batch_generation(model_worker_batch)


def main():
    worker = MyEagle(target_worker=TpModelWorker())
    return schedule(worker, make_batch(algorithm="EAGLE"))
