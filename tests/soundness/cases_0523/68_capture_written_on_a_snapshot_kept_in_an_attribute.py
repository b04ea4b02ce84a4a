# expect: reported MWB138
"""The snapshot kept on self: capture mode written, then forwarded on the target in the same method.

The mode is written on a snapshot kept in `self.mwb`, which the rewrite does not follow to the forward."""

from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.srt.model_executor.forward_batch_info import CaptureHiddenMode
from sglang.standin import make_batch, record


class Drafter:
    capture = CaptureHiddenMode.FULL

    def __init__(self, target_worker):
        self.target_worker = target_worker
        self.mwb = None

    def step(self, batch):
        self.mwb = batch.get_model_worker_batch()
        self.mwb.capture_hidden_mode = self.capture
        return self.target_worker.forward_batch_generation(self.mwb)

    def later(self):
        record("kept", self.mwb.capture_hidden_mode)


def main():
    d = Drafter(TpModelWorker())
    r = d.step(make_batch())
    d.later()
    return r
