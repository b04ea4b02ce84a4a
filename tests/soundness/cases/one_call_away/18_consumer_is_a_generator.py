# expect: reported MWB103
"""Adversary of the consumer one call away: the helper is a generator, so its body (and its
`init_new`) runs only when iterated, after another forward of the batch has taken the override
that the old object kept to itself."""
from sglang.srt.managers.schedule_batch import ModelWorkerBatch, ScheduleBatch
from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.srt.model_executor.forward_batch_info import CaptureHiddenMode, ForwardBatch, ForwardMode
from sglang.standin import make_batch, record, run_batch


class Drafter:
    def _extend(self, batch: ModelWorkerBatch, runner):
        forward_batch = ForwardBatch.init_new(batch, runner)
        yield forward_batch.capture_hidden_mode


class Worker(TpModelWorker):
    drafter = Drafter()

    def forward_batch_generation(self, model_worker_batch: ModelWorkerBatch):
        model_worker_batch.capture_hidden_mode = CaptureHiddenMode.FULL
        return self.drafter._extend(model_worker_batch, None)


def main():
    batch = make_batch()
    pending = run_batch(Worker(), batch)
    other = run_batch(TpModelWorker(), batch)
    return other, list(pending)
