# expect: same
"""A class body inside the function binds `batch` and reads the parameter."""
from sglang.srt.managers.schedule_batch import ModelWorkerBatch, ScheduleBatch
from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.standin import make_batch, record


def describe(model_worker_batch):
    class Snapshot:
        batch = "class attribute"
        seen = model_worker_batch.seq_lens

    return Snapshot.batch, Snapshot.seen


def main():
    return describe(make_batch().get_model_worker_batch())
