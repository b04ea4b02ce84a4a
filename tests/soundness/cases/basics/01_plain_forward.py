# expect: same
"""The tidy case: a snapshot taken and handed straight to the worker."""
from sglang.srt.managers.schedule_batch import ModelWorkerBatch, ScheduleBatch
from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.standin import make_batch, record


def run_batch(worker: TpModelWorker, batch: ScheduleBatch):
    model_worker_batch = batch.get_model_worker_batch()
    return worker.forward_batch_generation(model_worker_batch)


def main():
    return run_batch(TpModelWorker(), make_batch())
