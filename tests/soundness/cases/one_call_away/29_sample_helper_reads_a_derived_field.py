# expect: reported MWB112
"""Adversary of the reader one call away: the helper reads `capture_hidden_mode`, which the old
method derived rather than copied from the batch."""
from sglang.srt.managers.schedule_batch import ModelWorkerBatch, ScheduleBatch
from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.srt.model_executor.forward_batch_info import CaptureHiddenMode, ForwardBatch, ForwardMode
from sglang.standin import make_batch, record, run_batch


class Worker(TpModelWorker):
    def forward_batch_generation(self, model_worker_batch: ModelWorkerBatch):
        logits = self._forward(model_worker_batch)
        return self.sample(logits, model_worker_batch)

    def sample(self, logits, model_worker_batch: ModelWorkerBatch):
        return logits, str(model_worker_batch.capture_hidden_mode)


def main():
    return run_batch(Worker(), make_batch(forward_mode=ForwardMode.DECODE))
