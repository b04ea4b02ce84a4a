# expect: reported MWB138
"""A snapshot kept on self, forwarded by a stock EAGLE worker, then its capture mode read in another method."""

from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.srt.speculative.eagle_worker_v2 import EAGLEWorkerV2
from sglang.standin import make_batch, record


class Plugin:
    def __init__(self, spec):
        self.spec = spec

    def step(self, batch):
        self.mwb = batch.get_model_worker_batch()
        return self.spec.forward_batch_generation(self.mwb)

    def report(self):
        record("mode", self.mwb.capture_hidden_mode)


def main():
    p = Plugin(EAGLEWorkerV2(target_worker=TpModelWorker()))
    r = p.step(make_batch(algorithm="EAGLE"))
    p.report()
    return r
