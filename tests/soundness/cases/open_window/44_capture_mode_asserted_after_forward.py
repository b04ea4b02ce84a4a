# expect: same
"""`assert mwb.capture_hidden_mode == ...` after the forward: the snapshot kept the mode it derived."""
from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.srt.model_executor.forward_batch_info import CaptureHiddenMode
from sglang.standin import make_batch, record


def main():
    batch = make_batch(return_hidden_states=True)
    worker = TpModelWorker()
    mwb = batch.get_model_worker_batch()
    result = worker.forward_batch_generation(mwb)
    assert mwb.capture_hidden_mode == CaptureHiddenMode.FULL
    record("mode after forward", mwb.capture_hidden_mode)
    return result
