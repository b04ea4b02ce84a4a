# expect: same
"""Adversary of the derived-mode assert: its message is computed (it runs only when the assert
fails, and reads the snapshot); the snapshot stays."""
from sglang.srt.managers.schedule_batch import ModelWorkerBatch, ScheduleBatch
from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.srt.model_executor.forward_batch_info import CaptureHiddenMode, ForwardBatch, ForwardMode
from sglang.standin import make_batch, record, run_batch


def draft(batch):
    model_worker_batch = batch.get_model_worker_batch()
    assert model_worker_batch.capture_hidden_mode == CaptureHiddenMode.FULL, f"{model_worker_batch.capture_hidden_mode}"
    return ForwardBatch.init_new(model_worker_batch, None)


def main():
    try:
        return draft(make_batch())
    except AssertionError as error:
        return str(error)
