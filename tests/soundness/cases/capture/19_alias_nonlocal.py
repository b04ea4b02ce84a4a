# expect: reported MWB183
"""A nested function declares the local bound from `get_model_worker_batch()` nonlocal."""
from sglang.srt.managers.schedule_batch import ModelWorkerBatch, ScheduleBatch
from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.standin import make_batch, record


def forward(worker, batch, newer):
    mwb = batch.get_model_worker_batch()

    def refresh():
        nonlocal mwb
        mwb = newer

    refresh()
    return worker.forward_batch_generation(mwb)


def main():
    return forward(TpModelWorker(), make_batch(), make_batch(seq_lens=[7, 8]))
