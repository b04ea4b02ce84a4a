# expect: reported MWB112
"""Adversary of the reader one call away: a subclass overrides `sample` and reads the extend
lengths, which the old object gated on the forward mode; the call on `self` reaches it."""
from sglang.srt.managers.schedule_batch import ModelWorkerBatch, ScheduleBatch
from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.srt.model_executor.forward_batch_info import CaptureHiddenMode, ForwardBatch, ForwardMode
from sglang.standin import make_batch, record, run_batch


class Worker(TpModelWorker):
    def forward_batch_generation(self, model_worker_batch: ModelWorkerBatch):
        logits = self._forward(model_worker_batch)
        return self.sample(logits, model_worker_batch)

    def sample(self, logits, model_worker_batch: ModelWorkerBatch):
        return logits, model_worker_batch.seq_lens


class LengthsWorker(Worker):
    def sample(self, logits, model_worker_batch):
        return logits, model_worker_batch.extend_seq_lens


def main():
    return [run_batch(LengthsWorker(), make_batch(forward_mode=mode)) for mode in ForwardMode]
