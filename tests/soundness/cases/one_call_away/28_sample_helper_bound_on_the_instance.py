# expect: reported MWB112
"""Adversary of the reader one call away: the instance binds `sample` to another function, which
reads the extend lengths; `self.sample` reaches it, not the class's reader."""
from sglang.srt.managers.schedule_batch import ModelWorkerBatch, ScheduleBatch
from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.srt.model_executor.forward_batch_info import CaptureHiddenMode, ForwardBatch, ForwardMode
from sglang.standin import make_batch, record, run_batch


def _lengths(logits, batch):
    return logits, batch.extend_seq_lens


class Worker(TpModelWorker):
    def __init__(self):
        super().__init__()
        self.sample = _lengths

    def forward_batch_generation(self, model_worker_batch: ModelWorkerBatch):
        logits = self._forward(model_worker_batch)
        return self.sample(logits, model_worker_batch)

    def sample(self, logits, model_worker_batch: ModelWorkerBatch):
        return logits, model_worker_batch.seq_lens


def main():
    return [run_batch(Worker(), make_batch(forward_mode=mode)) for mode in ForwardMode]
