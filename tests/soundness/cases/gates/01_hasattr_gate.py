# expect: same
"""A feature check on get_model_worker_batch keeps its function working on both APIs."""
from sglang.srt.managers.schedule_batch import ScheduleBatch
from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.standin import make_batch, record


def run_batch(worker: TpModelWorker, batch: ScheduleBatch):
    if hasattr(batch, "get_model_worker_batch"):
        model_worker_batch = batch.get_model_worker_batch()
    else:
        model_worker_batch = batch
    return worker.forward_batch_generation(model_worker_batch)


def main():
    return run_batch(TpModelWorker(), make_batch())
