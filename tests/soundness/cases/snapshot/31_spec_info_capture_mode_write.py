# expect: same
"""spec_info's capture mode is changed after the snapshot, which derived capture_hidden_mode from it."""
from sglang.srt.managers.schedule_batch import ModelWorkerBatch, ScheduleBatch
from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.srt.model_executor.forward_batch_info import CaptureHiddenMode, ForwardBatch, ForwardMode
from sglang.standin import make_batch, record


class _Spec:
    capture_hidden_mode = CaptureHiddenMode.LAST


def main():
    batch = make_batch(spec_info=_Spec())
    worker = TpModelWorker()
    model_worker_batch = batch.get_model_worker_batch()
    spec = batch.spec_info
    spec.capture_hidden_mode = CaptureHiddenMode.FULL
    worker.forward_batch_generation(model_worker_batch)
