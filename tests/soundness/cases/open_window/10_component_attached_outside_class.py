# expect: same
"""A component attached to the scheduler from outside its class decodes the running batch in between."""
from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.standin import make_batch, record


class Scheduler:
    def __init__(self):
        self.running_batch = make_batch()
        self.worker = TpModelWorker()

    def step(self):
        batch = self.running_batch
        mwb = batch.get_model_worker_batch()
        self.metrics.tick()
        return self.worker.forward_batch_generation(mwb)


class Metrics:
    def __init__(self, owner):
        self.owner = owner

    def tick(self):
        self.owner.running_batch.prepare_for_decode()


def main():
    scheduler = Scheduler()
    scheduler.metrics = Metrics(scheduler)
    return scheduler.step()
