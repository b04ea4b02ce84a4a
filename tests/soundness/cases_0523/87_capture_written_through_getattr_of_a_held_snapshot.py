# expect: reported MWB138
"""A snapshot kept on self, aliased through getattr(self, "mwb"), written, then forwarded through the alias."""

from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.srt.model_executor.forward_batch_info import CaptureHiddenMode
from sglang.standin import make_batch


class Drafter:
    def __init__(self, target_worker):
        self.target_worker = target_worker

    def prepare(self, batch):
        self.mwb = batch.get_model_worker_batch()

    def step(self):
        mwb = getattr(self, "mwb")  # noqa: B009 (the alias is what is tried)
        mwb.capture_hidden_mode = CaptureHiddenMode.FULL
        return self.target_worker.forward_batch_generation(mwb)

    def again(self):
        return self.target_worker.forward_batch_generation(self.mwb)


def main():
    d = Drafter(TpModelWorker())
    d.prepare(make_batch())
    return d.step(), d.again()
