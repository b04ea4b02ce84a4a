# expect: same
"""`batch = self.running_batch`, then `self.running_batch.prepare_for_decode()` between the snapshot and the forward."""
from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.standin import make_batch, record


class Scheduler:
    def __init__(self):
        self.running_batch = make_batch()
        self.worker = TpModelWorker()

    def step(self):
        batch = self.running_batch
        mwb = batch.get_model_worker_batch()
        self.running_batch.prepare_for_decode()
        return self.worker.forward_batch_generation(mwb)


def main():
    return Scheduler().step()
