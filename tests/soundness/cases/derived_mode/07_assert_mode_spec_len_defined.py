# expect: same
"""Adversary of the derived-mode assert: a speculative input class that defines `__len__` in a
module that names the batch runs code when the forward reads it; the snapshot stays."""
from sglang.srt.managers.schedule_batch import ModelWorkerBatch, ScheduleBatch
from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.srt.model_executor.forward_batch_info import CaptureHiddenMode, ForwardBatch, ForwardMode
from sglang.standin import make_batch, record, run_batch


class EmptySpec:
    capture_hidden_mode = CaptureHiddenMode.LAST

    def __len__(self):
        return 0


def draft(batch):
    model_worker_batch = batch.get_model_worker_batch()
    assert model_worker_batch.capture_hidden_mode == CaptureHiddenMode.NULL
    return ForwardBatch.init_new(model_worker_batch, None)


def main():
    return draft(make_batch(spec_info=EmptySpec()))
