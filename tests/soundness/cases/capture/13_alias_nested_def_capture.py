# expect: same
"""The local bound from `get_model_worker_batch()` is read in a nested function with a `batch` parameter."""
from sglang.srt.managers.schedule_batch import ModelWorkerBatch, ScheduleBatch
from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.standin import make_batch, record


def schedule(worker, batch):
    mwb = batch.get_model_worker_batch()

    def helper(batch):
        record("helper's own", batch.seq_lens)
        return worker.forward_batch_generation(mwb)

    return helper(make_batch(seq_lens=[7, 8]))


def main():
    return schedule(TpModelWorker(), make_batch())
