# expect: same
"""An object built with the batch changes it later."""
from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.standin import make_batch, record


class Stepper:
    def __init__(self, batch):
        self.batch = batch

    def step(self):
        self.batch.seq_lens = [n + 1 for n in self.batch.seq_lens]


def main():
    batch = make_batch()
    stepper = Stepper(batch)
    worker = TpModelWorker()
    mwb = batch.get_model_worker_batch()
    stepper.step()
    return worker.forward_batch_generation(mwb)
