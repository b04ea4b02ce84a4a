# expect: reported MWB190
"""A tracing worker that keeps the object it is handed (`self.seen_model_worker_batch =
model_worker_batch`) and reads it at the next step, after the scheduler prepared the batch for
decode: the old object kept the first step's values; the live batch has the second's."""

from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.standin import make_batch, record, run_batch


class TracingWorker(TpModelWorker):
    def __init__(self):
        super().__init__()
        self.seen_model_worker_batch = None

    def forward_batch_generation(self, model_worker_batch, **kwargs):
        if self.seen_model_worker_batch is not None:
            record("previous lens", self.seen_model_worker_batch.seq_lens)
            record("previous mode", self.seen_model_worker_batch.forward_mode)
        self.seen_model_worker_batch = model_worker_batch
        return super().forward_batch_generation(model_worker_batch, **kwargs)


def main():
    worker = TracingWorker()
    batch = make_batch()
    run_batch(worker, batch)
    batch.prepare_for_decode()
    return run_batch(worker, batch)
