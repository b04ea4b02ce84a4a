# expect: same
"""A logging closure defined before the write reads the snapshot's capture mode after the forward.

A closure that reads the mode may run after the forward: the write stays on the snapshot."""

from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.srt.model_executor.forward_batch_info import CaptureHiddenMode
from sglang.standin import make_batch, record


class Drafter:
    def __init__(self, target_worker):
        self.target_worker = target_worker

    def step(self, batch):
        mwb = batch.get_model_worker_batch()

        def log_mode():
            record("asked", mwb.capture_hidden_mode)

        mwb.capture_hidden_mode = CaptureHiddenMode.FULL
        result = self.target_worker.forward_batch_generation(mwb)
        log_mode()
        return result


def main():
    return Drafter(TpModelWorker()).step(make_batch())
