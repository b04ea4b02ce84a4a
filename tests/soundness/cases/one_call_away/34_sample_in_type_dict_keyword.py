# expect: reported MWB112
"""Adversary of the reader one call away. A subclass built with `type(name, bases, dict(sample=f))`: its `sample` reads the extend
lengths (gated None in decode on the old object); `dict(sample=...)` spells the name only as a
keyword, which the pre-pass neither collects nor reads as a string."""
from sglang.srt.managers.schedule_batch import ModelWorkerBatch, ScheduleBatch
from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.srt.model_executor.forward_batch_info import CaptureHiddenMode, ForwardBatch, ForwardMode
from sglang.standin import make_batch, record, run_batch


def _lengths_sample(self, logits, batch):
    return logits, batch.extend_seq_lens


class Worker(TpModelWorker):
    def forward_batch_generation(self, model_worker_batch: ModelWorkerBatch):
        logits = self._forward(model_worker_batch)
        return self.sample(logits, model_worker_batch)

    def sample(self, logits, model_worker_batch: ModelWorkerBatch):
        return logits, model_worker_batch.seq_lens


LengthsWorker = type("LengthsWorker", (Worker,), dict(sample=_lengths_sample))


def main():
    return [run_batch(LengthsWorker(), make_batch(forward_mode=mode)) for mode in ForwardMode]
