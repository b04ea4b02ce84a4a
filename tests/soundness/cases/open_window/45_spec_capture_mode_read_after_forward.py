# expect: same
"""The capture mode derived from the speculative input, read on the snapshot after the forward and after the
input's mode changed."""
from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.srt.model_executor.forward_batch_info import CaptureHiddenMode
from sglang.standin import make_batch, record


class DraftInput:
    capture_hidden_mode = CaptureHiddenMode.LAST


def main():
    draft = DraftInput()
    batch = make_batch(spec_info=draft)
    worker = TpModelWorker()
    mwb = batch.get_model_worker_batch()
    result = worker.forward_batch_generation(mwb)
    draft.capture_hidden_mode = CaptureHiddenMode.FULL
    record("mode after forward", mwb.capture_hidden_mode)
    return result
