# expect: reported MWB150
"""A worker that takes either batch matches on the class, as `isinstance` tests it: `case
ModelWorkerBatch(...)` becomes `case ScheduleBatch(...)`, which the scheduler's batch now matches,
where it took the fallback case and built the old object before."""

from sglang.srt.managers.schedule_batch import ModelWorkerBatch, ScheduleBatch
from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.standin import make_batch, record


class RemoteWorker:
    def __init__(self):
        self.target_worker = TpModelWorker()

    def forward_batch_generation(self, batch: ScheduleBatch):
        match batch:
            case ModelWorkerBatch(forward_mode=mode):
                record("already a worker batch", mode)
                return self.target_worker.forward_batch_generation(batch)
            case _:
                model_worker_batch = batch.get_model_worker_batch()
                model_worker_batch.seq_lens = [n + 1 for n in model_worker_batch.seq_lens]
                return self.target_worker.forward_batch_generation(model_worker_batch)


def main():
    return RemoteWorker().forward_batch_generation(make_batch())
