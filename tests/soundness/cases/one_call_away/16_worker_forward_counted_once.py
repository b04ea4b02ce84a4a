# expect: same unmarked
"""The tree's own worker forward also hands its batch to init_new once: a call of it is one
forward, not one as a worker forward and another as a helper that consumes."""
from sglang.srt.managers.schedule_batch import ModelWorkerBatch, ScheduleBatch
from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.srt.model_executor.forward_batch_info import CaptureHiddenMode, ForwardBatch, ForwardMode
from sglang.standin import make_batch, record, run_batch


class Target(TpModelWorker):
    def forward_batch_generation(self, model_worker_batch: ModelWorkerBatch):
        forward_batch = ForwardBatch.init_new(model_worker_batch, None)
        return forward_batch.capture_hidden_mode


class Verifier:
    target_worker = Target()

    def verify(self, model_worker_batch: ModelWorkerBatch):
        model_worker_batch.capture_hidden_mode = CaptureHiddenMode.FULL
        return self.target_worker.forward_batch_generation(model_worker_batch)


def main():
    batch = make_batch()
    first = Verifier().verify(batch.get_model_worker_batch())
    return first, run_batch(TpModelWorker(), batch)
