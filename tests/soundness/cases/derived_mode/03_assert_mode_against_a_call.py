# expect: same
"""Adversary of the derived-mode assert: the other side is a call, which changes the batch before
the forward; the snapshot stays."""
from sglang.srt.managers.schedule_batch import ModelWorkerBatch, ScheduleBatch
from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.srt.model_executor.forward_batch_info import CaptureHiddenMode, ForwardBatch, ForwardMode
from sglang.standin import make_batch, record, run_batch


class Drafter:
    def __init__(self, batch):
        self.batch = batch

    def expected(self):
        self.batch.return_hidden_states = True
        return CaptureHiddenMode.NULL

    def draft(self, batch):
        model_worker_batch = batch.get_model_worker_batch()
        assert model_worker_batch.capture_hidden_mode == self.expected()
        return ForwardBatch.init_new(model_worker_batch, None)


def main():
    batch = make_batch()
    return Drafter(batch).draft(batch)
