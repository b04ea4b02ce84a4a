# expect: same
"""spec_info is an int subclass, false at 0: the old method tested it by truth, init_new by 'is not None'."""
from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.srt.model_executor.forward_batch_info import ForwardBatch, CaptureHiddenMode
from sglang.standin import make_batch, record


class Spec(int):
    capture_hidden_mode = CaptureHiddenMode.LAST


def main():
    batch = make_batch(spec_info=Spec(0))
    mwb = batch.get_model_worker_batch()
    return ForwardBatch.init_new(mwb, None)
