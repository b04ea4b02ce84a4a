# expect: same
"""A module flag computed from a feature check gates every function that reads it."""
from sglang.srt.managers.schedule_batch import ScheduleBatch
from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.standin import make_batch, record

HAS_OLD_API = hasattr(ScheduleBatch, "get_model_worker_batch")


def run_batch(worker: TpModelWorker, batch: ScheduleBatch):
    if HAS_OLD_API:
        model_worker_batch = batch.get_model_worker_batch()
        return worker.forward_batch_generation(model_worker_batch)
    return worker.forward_batch_generation(batch)


def plain(worker: TpModelWorker, batch: ScheduleBatch):
    model_worker_batch = batch.get_model_worker_batch()
    return worker.forward_batch_generation(model_worker_batch)


def main():
    worker = TpModelWorker()
    record("plain", plain(worker, make_batch()))
    return run_batch(worker, make_batch())
