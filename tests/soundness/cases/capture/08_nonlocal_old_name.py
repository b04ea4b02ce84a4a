# expect: same
"""A nested function rebinds the parameter through `nonlocal model_worker_batch`."""
from sglang.srt.managers.schedule_batch import ModelWorkerBatch, ScheduleBatch
from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.standin import make_batch, record


def forward_latest(worker, model_worker_batch, newer):
    def refresh():
        nonlocal model_worker_batch
        model_worker_batch = newer

    refresh()
    return worker.forward_batch_generation(model_worker_batch)


def main():
    newer = make_batch(seq_lens=[7, 8])
    return forward_latest(TpModelWorker(), make_batch().get_model_worker_batch(), newer.get_model_worker_batch())
