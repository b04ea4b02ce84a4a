# expect: same
"""The base class assigns `self.worker` only from SGLang's worker; a subclass (same module) replaces it with a
worker that keeps its argument, which is read after the batch decodes."""
from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.standin import make_batch, record


class Scheduler:
    def __init__(self):
        self.running_batch = make_batch()
        self.worker = TpModelWorker()

    def step(self):
        batch = self.running_batch
        mwb = batch.get_model_worker_batch()
        return self.worker.forward_batch_generation(mwb)


class Keeper:
    def __init__(self):
        self.inner = TpModelWorker()
        self.kept = None

    def forward_batch_generation(self, model_worker_batch):
        self.kept = model_worker_batch
        return self.inner.forward_batch_generation(model_worker_batch)


class TracedScheduler(Scheduler):
    def __init__(self):
        super().__init__()
        self.worker = Keeper()


def main():
    scheduler = TracedScheduler()
    result = scheduler.step()
    scheduler.running_batch.prepare_for_decode()
    record("kept seq_lens", scheduler.worker.kept.seq_lens)
    return result
