# expect: same
"""Config-driven overrides applied with setattr in a loop on the old object, then a target forward."""

from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.srt.model_executor.forward_batch_info import CaptureHiddenMode
from sglang.standin import make_batch


class Drafter:
    overrides = {"capture_hidden_mode": CaptureHiddenMode.FULL}

    def __init__(self, target_worker: TpModelWorker):
        self.target_worker = target_worker

    def step(self, batch):
        mwb = batch.get_model_worker_batch()
        for name, value in self.overrides.items():
            setattr(mwb, name, value)
        return self.target_worker.forward_batch_generation(mwb)


def main():
    return Drafter(TpModelWorker()).step(make_batch())
