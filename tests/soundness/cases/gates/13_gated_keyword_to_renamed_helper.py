# expect: reported MWB156
"""Gated code passes `model_worker_batch=` to a helper of this file that the migration renames: said, not silent."""
from sglang.srt.managers.schedule_batch import ScheduleBatch
from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.standin import make_batch, record


def forward_and_record(worker: TpModelWorker, model_worker_batch):
    record("seq_lens", list(model_worker_batch.seq_lens))
    return worker.forward_batch_generation(model_worker_batch)


def run_batch(worker: TpModelWorker, batch: ScheduleBatch):
    if hasattr(batch, "get_model_worker_batch"):
        return forward_and_record(worker, model_worker_batch=batch.get_model_worker_batch())
    return forward_and_record(worker, model_worker_batch=batch)


def main():
    return run_batch(TpModelWorker(), make_batch())
