# expect: same
"""A positional-only parameter is renamed; no keyword caller can exist."""
from sglang.srt.managers.schedule_batch import ModelWorkerBatch, ScheduleBatch
from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.standin import make_batch, record


def run(worker, model_worker_batch, /):
    return worker.forward_batch_generation(model_worker_batch)


def main():
    return run(TpModelWorker(), make_batch().get_model_worker_batch())
