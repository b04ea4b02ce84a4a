# expect: reported MWB190
"""A worker that memoises its per-forward preparation on the object it is handed (`if
model_worker_batch is self._planned_for: reuse`): the old object was new at every forward, the live
batch is the same object at every step, so a stale plan would be reused."""

from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.standin import make_batch, record, run_batch


class PlanningWorker(TpModelWorker):
    def __init__(self):
        super().__init__()
        self._planned_for = None
        self._plan = None

    def _build_plan(self, model_worker_batch):
        return list(model_worker_batch.seq_lens)

    def forward_batch_generation(self, model_worker_batch, **kwargs):
        if model_worker_batch is not self._planned_for:
            self._plan = self._build_plan(model_worker_batch)
            self._planned_for = model_worker_batch
        record("plan", self._plan)
        return super().forward_batch_generation(model_worker_batch, **kwargs)


def main():
    worker = PlanningWorker()
    batch = make_batch()
    run_batch(worker, batch)
    batch.prepare_for_decode()
    return run_batch(worker, batch)
