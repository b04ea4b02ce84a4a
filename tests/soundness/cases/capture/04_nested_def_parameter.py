# expect: same
"""A nested helper whose own parameter is `batch` forwards the outer parameter."""
from sglang.srt.managers.schedule_batch import ModelWorkerBatch, ScheduleBatch
from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.standin import make_batch, record


def schedule(worker, model_worker_batch):
    def helper(batch):
        record("helper's own", batch.seq_lens)
        return worker.forward_batch_generation(model_worker_batch)

    return helper(make_batch(seq_lens=[7, 8]))


def main():
    return schedule(TpModelWorker(), make_batch().get_model_worker_batch())
