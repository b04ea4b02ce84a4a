# expect: reported MWB112
"""Adversary of the reader one call away: the helper reads a copied field, but in a closure it
returns, which the caller runs after the batch has changed."""
from sglang.srt.managers.schedule_batch import ModelWorkerBatch, ScheduleBatch
from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.srt.model_executor.forward_batch_info import CaptureHiddenMode, ForwardBatch, ForwardMode
from sglang.standin import make_batch, record, run_batch


class Worker(TpModelWorker):
    def forward_batch_generation(self, model_worker_batch: ModelWorkerBatch):
        logits = self._forward(model_worker_batch)
        later = self.sample(logits, model_worker_batch)
        self.pending = later
        return logits

    def sample(self, logits, model_worker_batch: ModelWorkerBatch):
        return lambda: model_worker_batch.return_logprob


def main():
    worker = Worker()
    batch = make_batch(forward_mode=ForwardMode.DECODE)
    run_batch(worker, batch)
    batch.return_logprob = not batch.return_logprob
    return worker.pending()
