# expect: reported MWB112
"""Adversary of the reader one call away. The worker's `sample` reads only copied fields, but in a generator expression it returns: the
element expression reads the batch when the caller iterates, after the scheduler has prepared the
next decode step. The old object still held this forward's lengths."""
from sglang.srt.managers.schedule_batch import ModelWorkerBatch, ScheduleBatch
from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.srt.model_executor.forward_batch_info import CaptureHiddenMode, ForwardBatch, ForwardMode
from sglang.standin import make_batch, record, run_batch


class Worker(TpModelWorker):
    def forward_batch_generation(self, model_worker_batch: ModelWorkerBatch):
        logits = self._forward(model_worker_batch)
        return self.sample(logits, model_worker_batch)

    def sample(self, logits, model_worker_batch: ModelWorkerBatch):
        return logits, (model_worker_batch.seq_lens[i] + 1 for i in range(2))


def main():
    batch = make_batch()
    logits, next_lens = run_batch(Worker(), batch)
    batch.prepare_for_decode()
    return logits, list(next_lens)
