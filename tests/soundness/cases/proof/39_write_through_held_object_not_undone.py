# expect: same
"""Rule I1, adversary: a write on a name that is no parameter of the worker method is not covered."""
from sglang.srt.managers.schedule_batch import ModelWorkerBatch, ScheduleBatch
from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.srt.model_executor.forward_batch_info import CaptureHiddenMode, ForwardBatch, ForwardMode
from sglang.srt.speculative.eagle_worker_v2 import EAGLEWorkerV2
from sglang.standin import make_batch, record, run_batch


class CachingWorker(EAGLEWorkerV2):
    def prepare(self, batch: ScheduleBatch):
        self.snapshot = batch.get_model_worker_batch()

    def later(self):
        model_worker_batch = self.snapshot
        model_worker_batch.seq_lens = [9, 9]


def main():
    batch = make_batch()
    worker = CachingWorker()
    worker.prepare(batch)
    worker.later()
    record("after", batch.seq_lens)
