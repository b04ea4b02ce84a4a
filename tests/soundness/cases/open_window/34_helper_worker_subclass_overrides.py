# expect: same
"""A module helper typed with SGLang's worker is handed a subclass (same module) whose override keeps its
argument; the batch is filtered afterwards and the kept value is read."""
from sglang.srt.managers.schedule_batch import ScheduleBatch
from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.standin import make_batch, record


class KeepingWorker(TpModelWorker):
    def __init__(self):
        super().__init__()
        self.kept = None

    def forward_batch_generation(self, model_worker_batch, *args, **kwargs):
        self.kept = model_worker_batch
        return super().forward_batch_generation(model_worker_batch, *args, **kwargs)


def run(worker: TpModelWorker, batch: ScheduleBatch):
    mwb = batch.get_model_worker_batch()
    return worker.forward_batch_generation(mwb)


def main():
    batch = make_batch()
    worker = KeepingWorker()
    result = run(worker, batch)
    batch.filter_batch([1])
    record("kept seq_lens", worker.kept.seq_lens)
    record("kept pool", worker.kept.req_pool_indices)
    return result
