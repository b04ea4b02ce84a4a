# expect: same
"""A capture mode written once on a kept snapshot, then two worker forwards of it.

Each forward of the kept snapshot takes the mode written on it: the old object kept the write for
both, where a keyword folded into the first call would leave the second to derive its own."""

from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.srt.model_executor.forward_batch_info import CaptureHiddenMode
from sglang.standin import make_batch


class Drafter:
    def __init__(self, target_worker):
        self.target_worker = target_worker

    def step(self, batch):
        mwb = batch.get_model_worker_batch()
        mwb.capture_hidden_mode = CaptureHiddenMode.FULL
        first = self.target_worker.forward_batch_generation(mwb)
        second = self.target_worker.forward_batch_generation(mwb)
        return first, second


def main():
    return Drafter(TpModelWorker()).step(make_batch())
