# expect: same
"""`self.budget` looks like a plain attribute of the scheduler's class, but the instance is a subclass (same module)
whose property decodes the running batch."""
from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.standin import make_batch, record


class Scheduler:
    def __init__(self):
        self.running_batch = make_batch()
        self.worker = TpModelWorker()

    def step(self):
        batch = self.running_batch
        mwb = batch.get_model_worker_batch()
        budget = self.budget
        return self.worker.forward_batch_generation(mwb)


class DecodingScheduler(Scheduler):
    @property
    def budget(self):
        self.running_batch.prepare_for_decode()
        return 8


def main():
    return DecodingScheduler().step()
