# expect: same
"""The enum's name is a parameter of the function holding the snapshot."""
from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.srt.model_executor.forward_batch_info import ForwardBatch, CaptureHiddenMode
from sglang.standin import make_batch, record


def run(batch, CaptureHiddenMode=None):
    mwb = batch.get_model_worker_batch()
    assert mwb.capture_hidden_mode is not None
    return ForwardBatch.init_new(mwb, None)


def main():
    return run(make_batch())
