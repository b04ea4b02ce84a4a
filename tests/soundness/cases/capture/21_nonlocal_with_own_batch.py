# expect: same
"""A nested function declares `nonlocal model_worker_batch` and binds its own `batch`."""
from sglang.srt.managers.schedule_batch import ModelWorkerBatch, ScheduleBatch
from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.standin import make_batch, record


def forward_latest(worker, model_worker_batch, newer):
    def refresh(batch):
        nonlocal model_worker_batch
        record("own", batch.seq_lens)
        model_worker_batch = newer

    refresh(make_batch(seq_lens=[1, 1]))
    return worker.forward_batch_generation(model_worker_batch)


def main():
    return forward_latest(TpModelWorker(), make_batch().get_model_worker_batch(), make_batch(seq_lens=[7, 8]).get_model_worker_batch())
