# expect: reported MWB138
"""The snapshot kept on `self`; the step writes the mode through a local alias of it and forwards.

The old object kept the write, so `again()`'s forward of `self.mwb` read FULL too. From 0.5.16 the
mode is a keyword: the alias's forward is given the snapshot's field, and the write is marked, since
the forward through `self.mwb` is not given it."""

from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.srt.model_executor.forward_batch_info import CaptureHiddenMode
from sglang.standin import make_batch


class Drafter:
    def __init__(self, target_worker):
        self.target_worker = target_worker
        self.mwb = None

    def prepare(self, batch):
        self.mwb = batch.get_model_worker_batch()

    def step(self):
        mwb = self.mwb
        mwb.capture_hidden_mode = CaptureHiddenMode.FULL
        return self.target_worker.forward_batch_generation(mwb)

    def again(self):
        return self.target_worker.forward_batch_generation(self.mwb)


def main():
    d = Drafter(TpModelWorker())
    d.prepare(make_batch())
    return d.step(), d.again()
