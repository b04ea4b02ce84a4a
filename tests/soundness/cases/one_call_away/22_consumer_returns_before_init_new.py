# expect: reported MWB103
"""Adversary of the consumer one call away: the helper returns before its `init_new` on one path,
which leaves the override on the batch for the next forward."""
from sglang.srt.managers.schedule_batch import ModelWorkerBatch, ScheduleBatch
from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.srt.model_executor.forward_batch_info import CaptureHiddenMode, ForwardBatch, ForwardMode
from sglang.standin import make_batch, record, run_batch


class Drafter:
    def _extend(self, batch: ModelWorkerBatch, runner):
        if runner is None:
            return None
        forward_batch = ForwardBatch.init_new(batch, runner)
        return forward_batch.capture_hidden_mode


class Worker(TpModelWorker):
    drafter = Drafter()

    def forward_batch_generation(self, model_worker_batch: ModelWorkerBatch):
        model_worker_batch.capture_hidden_mode = CaptureHiddenMode.FULL
        return self.drafter._extend(model_worker_batch, None)


def main():
    batch = make_batch()
    first = run_batch(Worker(), batch)
    return first, run_batch(TpModelWorker(), batch)
