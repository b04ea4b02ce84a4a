# expect: reported MWB190
# source: sgl-project/sglang 0.5.13 managers/scheduler.py hands workers `on_publish=partial(self.future_map.publish,
#   future_indices)`; 0.5.12-era forks build the same kind of deferred callback over the batch they were handed
#   (the overlap client of the HPU fork resolves results one step later).
"""A worker binds the object it was handed into a functools.partial finalizer that the scheduler runs
after it has moved the batch on to the next step."""
import functools

from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.standin import make_batch, record, run_batch


class LaggedWorker(TpModelWorker):
    def __init__(self):
        super().__init__()
        self.pending_finalize = None

    def _finalize(self, model_worker_batch, out):
        record("finalize lens", model_worker_batch.seq_lens)
        return out

    def forward_batch_generation(self, model_worker_batch, **kwargs):
        out = super().forward_batch_generation(model_worker_batch, **kwargs)
        self.pending_finalize = functools.partial(self._finalize, model_worker_batch, out)
        return out


def main():
    worker = LaggedWorker()
    batch = make_batch()
    run_batch(worker, batch)
    batch.prepare_for_decode()
    return worker.pending_finalize()
