# expect: reported MWB155
"""A gated override keeps `model_worker_batch`, while its keyword caller moves to `batch=`: said, not silent."""
from sglang.srt.managers.schedule_batch import ScheduleBatch
from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.standin import make_batch, record


class TracingWorker(TpModelWorker):
    def forward_batch_generation(self, model_worker_batch, *args, **kwargs):
        if hasattr(model_worker_batch, "get_model_worker_batch"):
            model_worker_batch = model_worker_batch.get_model_worker_batch()
        record("traced", list(model_worker_batch.seq_lens))
        return super().forward_batch_generation(model_worker_batch, *args, **kwargs)


def run_batch(worker: TpModelWorker, batch: ScheduleBatch):
    model_worker_batch = batch.get_model_worker_batch()
    return worker.forward_batch_generation(model_worker_batch=model_worker_batch)


def main():
    return run_batch(TracingWorker(), make_batch())
