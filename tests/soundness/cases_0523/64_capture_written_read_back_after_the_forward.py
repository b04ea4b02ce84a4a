# expect: same
"""A capture mode written, read back for logging, then the snapshot forwarded.

The mode written on a kept snapshot stays on it: a read after the forward sees it, as on the old
object."""

from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.srt.model_executor.forward_batch_info import CaptureHiddenMode
from sglang.standin import make_batch, record


class Drafter:
    def __init__(self, target_worker):
        self.target_worker = target_worker

    def step(self, batch):
        mwb = batch.get_model_worker_batch()
        mwb.capture_hidden_mode = CaptureHiddenMode.FULL
        result = self.target_worker.forward_batch_generation(mwb)
        record("asked", mwb.capture_hidden_mode)
        return result


def main():
    return Drafter(TpModelWorker()).step(make_batch())
