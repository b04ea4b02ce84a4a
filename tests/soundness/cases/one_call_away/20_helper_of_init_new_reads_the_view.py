# expect: same unmarked
"""A helper that only the tree's `ForwardBatch.init_new` calls, handed its batch: core-runtime puts
the runtime's view at the top of `init_new`, so the helper reads the extend lengths gated, as the
old object held them."""
from sglang.srt.managers.schedule_batch import ModelWorkerBatch, ScheduleBatch
from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.srt.model_executor.forward_batch_info import CaptureHiddenMode, ForwardMode
from sglang.standin import make_batch, record, run_batch


class ForwardBatch:
    def __init__(self, forward_mode):
        self.forward_mode = forward_mode
        self.lengths = None

    @classmethod
    def init_new(cls, batch: ModelWorkerBatch, model_runner):
        ret = cls(batch.forward_mode)
        ret.lengths = ret._lengths(batch)
        return ret

    def _lengths(self, batch: ModelWorkerBatch):
        return batch.extend_seq_lens


class Worker(TpModelWorker):
    def forward_batch_generation(self, model_worker_batch: ModelWorkerBatch):
        return ForwardBatch.init_new(model_worker_batch, None).lengths


def main():
    return [run_batch(Worker(), make_batch(forward_mode=mode)) for mode in ForwardMode]
