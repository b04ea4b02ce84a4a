# expect: same unmarked
"""The derived-mode assert after `init_new` in the window: `init_new` writes neither
`return_hidden_states` nor `spec_info`, so the derivation reads the same there."""
from sglang.srt.managers.schedule_batch import ModelWorkerBatch, ScheduleBatch
from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.srt.model_executor.forward_batch_info import CaptureHiddenMode, ForwardBatch, ForwardMode
from sglang.standin import make_batch, record, run_batch


def draft(batch):
    model_worker_batch = batch.get_model_worker_batch()
    forward_batch = ForwardBatch.init_new(model_worker_batch, None)
    assert model_worker_batch.capture_hidden_mode is CaptureHiddenMode.FULL
    return forward_batch


def main():
    return draft(make_batch(return_hidden_states=True))
