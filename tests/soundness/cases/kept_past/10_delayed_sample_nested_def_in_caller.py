# expect: reported MWB190
"""The same delayed sample, in 0.5.12's own shape: a nested `def sample_batch_func()` calls
`self.sample(logits, model_worker_batch)` when the scheduler runs it, after the next decode step
was prepared."""
from sglang.srt.managers.schedule_batch import ModelWorkerBatch, ScheduleBatch
from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.srt.model_executor.forward_batch_info import CaptureHiddenMode, ForwardBatch, ForwardMode
from sglang.srt.speculative.eagle_worker_v2 import EAGLEWorkerV2
from sglang.standin import make_batch, record, run_batch


class Worker(TpModelWorker):
    def forward_batch_generation(self, model_worker_batch: ModelWorkerBatch):
        logits = self._forward(model_worker_batch)

        def sample_batch_func():
            return self.sample(logits, model_worker_batch)

        self.delay_sample_func = sample_batch_func
        return logits

    def sample(self, logits, model_worker_batch: ModelWorkerBatch):
        return [n + 1 for n in model_worker_batch.seq_lens]


def main():
    worker = Worker()
    batch = make_batch()
    run_batch(worker, batch)
    batch.prepare_for_decode()
    return worker.delay_sample_func()
