# expect: reported MWB138
"""Mode written, then the target forward called with *args holding the snapshot."""

from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.srt.model_executor.forward_batch_info import CaptureHiddenMode
from sglang.standin import make_batch


class Drafter:
    def __init__(self, target_worker: TpModelWorker):
        self.target_worker = target_worker

    def step(self, batch):
        mwb = batch.get_model_worker_batch()
        mwb.capture_hidden_mode = CaptureHiddenMode.FULL
        args = (mwb,)
        return self.target_worker.forward_batch_generation(*args)


def main():
    return Drafter(TpModelWorker()).step(make_batch())
