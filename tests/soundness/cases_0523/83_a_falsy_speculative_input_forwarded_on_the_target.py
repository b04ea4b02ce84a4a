# expect: same
"""A spec input that subclasses list (empty, so falsy) with capture mode LAST; no __len__/__bool__ in the tree."""

from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.srt.model_executor.forward_batch_info import CaptureHiddenMode
from sglang.standin import make_batch


class DraftTokens(list):
    capture_hidden_mode = CaptureHiddenMode.LAST


class Runner:
    def __init__(self, target_worker):
        self.target_worker = target_worker

    def step(self, batch):
        mwb = batch.get_model_worker_batch()
        return self.target_worker.forward_batch_generation(mwb)


def main():
    return Runner(TpModelWorker()).step(make_batch(spec_info=DraftTokens()))
