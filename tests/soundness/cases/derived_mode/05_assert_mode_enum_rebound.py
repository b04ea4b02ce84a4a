# expect: same
"""Adversary of the derived-mode assert: the module binds `CaptureHiddenMode` twice, so the
derivation cannot name SGLang's enum; the snapshot stays."""
from sglang.srt.managers.schedule_batch import ModelWorkerBatch, ScheduleBatch
from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.srt.model_executor.forward_batch_info import CaptureHiddenMode, ForwardBatch, ForwardMode
from sglang.standin import make_batch, record, run_batch


def draft(batch):
    model_worker_batch = batch.get_model_worker_batch()
    assert model_worker_batch.capture_hidden_mode == CaptureHiddenMode.NULL
    return ForwardBatch.init_new(model_worker_batch, None)


def main():
    global CaptureHiddenMode
    result = draft(make_batch())
    CaptureHiddenMode = None
    return result
