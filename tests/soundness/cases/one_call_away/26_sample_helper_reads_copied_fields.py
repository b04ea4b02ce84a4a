# expect: same unmarked
"""A worker's own `sample`, called on `self`, reads only fields the old method copied from the
batch attribute of the same name: handed the batch, it reads what it read on the old object, and
no forward batch is expected there (no MWB112)."""
from sglang.srt.managers.schedule_batch import ModelWorkerBatch, ScheduleBatch
from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.srt.model_executor.forward_batch_info import CaptureHiddenMode, ForwardBatch, ForwardMode
from sglang.standin import make_batch, record, run_batch


class Worker(TpModelWorker):
    def forward_batch_generation(self, model_worker_batch: ModelWorkerBatch):
        logits = self._forward(model_worker_batch)
        return self.sample(logits, model_worker_batch)

    def sample(self, logits, model_worker_batch: ModelWorkerBatch):
        record("seq_lens", list(model_worker_batch.seq_lens))
        record("mode", model_worker_batch.forward_mode)
        return logits, [n + 1 for n in model_worker_batch.seq_lens]


def main():
    return [run_batch(Worker(), make_batch(forward_mode=mode)) for mode in ForwardMode]
