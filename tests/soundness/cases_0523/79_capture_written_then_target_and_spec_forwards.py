# expect: reported MWB138
"""The capture mode written on a kept snapshot, forwarded on the target, then the same snapshot handed to an
EAGLE worker's forward (which sets its own mode in 0.5.12).

Only the target worker's forward is given the snapshot's mode; the speculative worker's is marked."""

from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.srt.model_executor.forward_batch_info import CaptureHiddenMode
from sglang.srt.speculative.eagle_worker_v2 import EAGLEWorkerV2
from sglang.standin import make_batch


class Runner:
    def __init__(self, target, spec):
        self.target = target
        self.spec = spec

    def step(self, batch):
        mwb = batch.get_model_worker_batch()
        mwb.capture_hidden_mode = CaptureHiddenMode.LAST
        first = self.target.forward_batch_generation(mwb)
        second = self.spec.forward_batch_generation(mwb)
        return first, second


def main():
    target = TpModelWorker()
    return Runner(target, EAGLEWorkerV2(target_worker=target)).step(make_batch())
