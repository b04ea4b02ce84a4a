# expect: same
"""The spec input's capture mode changed after the snapshot; then the snapshot goes to the target worker (old: the mode derived when taken)."""

from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.srt.model_executor.forward_batch_info import CaptureHiddenMode
from sglang.standin import make_batch


class SpecInput:
    def __init__(self):
        self.capture_hidden_mode = CaptureHiddenMode.LAST


class Runner:
    def __init__(self, target_worker):
        self.target_worker = target_worker

    def step(self, batch):
        mwb = batch.get_model_worker_batch()
        mwb.spec_info.capture_hidden_mode = CaptureHiddenMode.FULL
        return self.target_worker.forward_batch_generation(mwb)


def main():
    return Runner(TpModelWorker()).step(make_batch(spec_info=SpecInput()))
