# expect: same
"""The forward batch rebinds a local whose old value's finalizer changes the batch: the snapshot is kept."""
from sglang.srt.managers.schedule_batch import ModelWorkerBatch, ScheduleBatch
from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.srt.model_executor.forward_batch_info import CaptureHiddenMode, ForwardBatch, ForwardMode
from sglang.standin import make_batch, record


class _Lease:
    def __init__(self, batch):
        self.batch = batch

    def __del__(self):
        self.batch.seq_lens = [1, 1]


def build(batch, runner):
    forward_batch = _Lease(batch)
    model_worker_batch = batch.get_model_worker_batch()
    forward_batch = ForwardBatch.init_new(model_worker_batch, runner)
    return forward_batch


def main():
    batch = make_batch()
    record("forward", build(batch, None))
