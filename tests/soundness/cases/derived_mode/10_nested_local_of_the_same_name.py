# expect: same MWB104
"""A nested function with its own local of the snapshot's name asserts on its capture mode: only
the snapshot's own uses read the derivation from the batch."""
from sglang.srt.managers.schedule_batch import ModelWorkerBatch, ScheduleBatch
from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.srt.model_executor.forward_batch_info import CaptureHiddenMode, ForwardBatch, ForwardMode
from sglang.standin import make_batch, record


def draft(batch, other):
    model_worker_batch = batch.get_model_worker_batch()
    assert model_worker_batch.capture_hidden_mode == CaptureHiddenMode.NULL
    forward_batch = ForwardBatch.init_new(model_worker_batch, None)

    def check(model_worker_batch):
        assert model_worker_batch.capture_hidden_mode == CaptureHiddenMode.FULL
        return True

    return forward_batch, check(other)


def main():
    other = make_batch(return_hidden_states=True).get_model_worker_batch()
    return draft(make_batch(), other)
