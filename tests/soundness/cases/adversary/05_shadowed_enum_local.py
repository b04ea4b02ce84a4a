# expect: same
"""A local named CaptureHiddenMode shadows the import: the derived expression reads the local."""
from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.srt.model_executor.forward_batch_info import ForwardBatch, CaptureHiddenMode
from sglang.standin import make_batch, record


def main():
    batch = make_batch()
    CaptureHiddenMode = "shadow"
    mwb = batch.get_model_worker_batch()
    assert mwb.capture_hidden_mode != 5
    return ForwardBatch.init_new(mwb, None)
