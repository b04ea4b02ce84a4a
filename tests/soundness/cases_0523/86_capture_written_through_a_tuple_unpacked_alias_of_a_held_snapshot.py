# expect: reported MWB138
"""A snapshot kept on self, aliased through tuple unpacking, written, then forwarded through the attribute."""

from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.srt.model_executor.forward_batch_info import CaptureHiddenMode
from sglang.standin import make_batch


class Drafter:
    def __init__(self, target_worker):
        self.target_worker = target_worker
        self.mwb = None

    def step(self, batch):
        self.mwb = batch.get_model_worker_batch()
        mwb, n = self.mwb, len(batch.reqs)
        mwb.capture_hidden_mode = CaptureHiddenMode.FULL
        return self.target_worker.forward_batch_generation(self.mwb), n


def main():
    return Drafter(TpModelWorker()).step(make_batch())
