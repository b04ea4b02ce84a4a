# expect: same
"""spec_info replaced on the snapshot after it was taken, then a target forward (old: the snapshot's derived mode NULL)."""

from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.srt.model_executor.forward_batch_info import CaptureHiddenMode
from sglang.standin import make_batch


class VerifyInput:
    capture_hidden_mode = CaptureHiddenMode.FULL


class Runner:
    def __init__(self, target_worker):
        self.target_worker = target_worker

    def step(self, batch):
        mwb = batch.get_model_worker_batch()
        mwb.spec_info = VerifyInput()
        return self.target_worker.forward_batch_generation(mwb)


def main():
    return Runner(TpModelWorker()).step(make_batch())
