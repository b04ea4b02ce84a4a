# expect: same
"""spec_info.capture_hidden_mode is a property through an alias of property: read once by the old method,
twice on the live batch (the derived-mode assert and init_new)."""
from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.srt.model_executor.forward_batch_info import ForwardBatch, CaptureHiddenMode
from sglang.standin import make_batch, record


prop = property


class Spec:
    def __init__(self):
        self.reads = 0

    @prop
    def capture_hidden_mode(self):
        self.reads += 1
        return CaptureHiddenMode.LAST if self.reads == 1 else CaptureHiddenMode.FULL


def main():
    batch = make_batch(spec_info=Spec())
    mode = CaptureHiddenMode.LAST
    mwb = batch.get_model_worker_batch()
    assert mwb.capture_hidden_mode == mode
    return ForwardBatch.init_new(mwb, None)
