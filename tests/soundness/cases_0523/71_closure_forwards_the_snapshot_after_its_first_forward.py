# expect: same
"""A retry closure defined before the write forwards the same snapshot again after the first forward.

A closure names the snapshot: the write is not folded into the first forward, and the closure's
forward takes the snapshot's mode too."""

from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.srt.model_executor.forward_batch_info import CaptureHiddenMode
from sglang.standin import make_batch


class Drafter:
    def __init__(self, target_worker):
        self.target_worker = target_worker

    def step(self, batch):
        mwb = batch.get_model_worker_batch()

        def retry():
            return self.target_worker.forward_batch_generation(mwb)

        mwb.capture_hidden_mode = CaptureHiddenMode.FULL
        first = self.target_worker.forward_batch_generation(mwb)
        second = retry()
        return first, second


def main():
    return Drafter(TpModelWorker()).step(make_batch())
