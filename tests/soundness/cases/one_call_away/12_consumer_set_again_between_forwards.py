# expect: same unmarked
"""An override set before a worker forward and set again before a helper that consumes it: each
forward consumes the value set right before it (upstream's EAGLE V2 prefill)."""
from sglang.srt.managers.schedule_batch import ModelWorkerBatch, ScheduleBatch
from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.srt.model_executor.forward_batch_info import CaptureHiddenMode, ForwardBatch, ForwardMode
from sglang.standin import make_batch, record, run_batch


class Drafter:
    def _extend(self, batch: ModelWorkerBatch, runner):
        forward_batch = ForwardBatch.init_new(batch, runner)
        return forward_batch.capture_hidden_mode


class Worker(TpModelWorker):
    drafter = Drafter()
    target = TpModelWorker()

    def forward_batch_generation(self, model_worker_batch: ModelWorkerBatch):
        model_worker_batch.capture_hidden_mode = CaptureHiddenMode.FULL
        first = self.target.forward_batch_generation(model_worker_batch)
        model_worker_batch.capture_hidden_mode = CaptureHiddenMode.LAST
        return first, self.drafter._extend(model_worker_batch, None)


def main():
    batch = make_batch()
    first = run_batch(Worker(), batch)
    return first, run_batch(TpModelWorker(), batch)
