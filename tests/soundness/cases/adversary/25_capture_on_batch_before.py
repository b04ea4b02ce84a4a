# expect: same
"""A capture mode written on the batch before the snapshot, then assert on the snapshot and init_new."""
from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.srt.model_executor.forward_batch_info import ForwardBatch, CaptureHiddenMode
from sglang.standin import make_batch, record


def main():
    batch = make_batch()
    batch.capture_hidden_mode = CaptureHiddenMode.FULL
    mwb = batch.get_model_worker_batch()
    assert mwb.capture_hidden_mode == CaptureHiddenMode.NULL
    return ForwardBatch.init_new(mwb, None)
