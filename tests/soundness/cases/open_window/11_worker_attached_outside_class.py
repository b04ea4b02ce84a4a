# expect: same
"""The scheduler's class assigns `self.worker` only from SGLang's worker, but the caller swaps in a worker
that keeps what it is handed; the batch decodes afterwards and the kept value is read."""
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
    def __init__(self, inner):
        self.inner = inner
        self.kept = []

    def forward_batch_generation(self, model_worker_batch, launch_done=None, skip_sample=False):
        self.kept.append(model_worker_batch)
        return self.inner.forward_batch_generation(model_worker_batch, launch_done, skip_sample)


def main():
    scheduler = Scheduler()
    keeper = Keeper(scheduler.worker)
    scheduler.worker = keeper
    result = scheduler.step()
    scheduler.running_batch.prepare_for_decode()
    record("kept seq_lens", keeper.kept[0].seq_lens)
    record("kept mode", keeper.kept[0].forward_mode)
    return result
