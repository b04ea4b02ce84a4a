# expect: reported MWB112
"""Adversary of the reader one call away. A worker's own `sample` reads `dimensions` (an embedding option the old method copied from the
batch verbatim). 0.5.13 removed `dimensions` from ScheduleBatch (init_new computes it from the
requests), so reading it on the live batch raises."""
from sglang.srt.managers.schedule_batch import ModelWorkerBatch, ScheduleBatch
from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.srt.model_executor.forward_batch_info import CaptureHiddenMode, ForwardBatch, ForwardMode
from sglang.standin import make_batch, record, run_batch


class Worker(TpModelWorker):
    def forward_batch_generation(self, model_worker_batch: ModelWorkerBatch):
        logits = self._forward(model_worker_batch)
        return self.sample(logits, model_worker_batch)

    def sample(self, logits, batch):
        record("seq_lens", list(batch.seq_lens))
        return logits, batch.dimensions


def main():
    return run_batch(Worker(), make_batch())
