# expect: same
"""An outer parameter and a nested function's annotated parameter would both become `batch`."""
from sglang.srt.managers.schedule_batch import ModelWorkerBatch, ScheduleBatch
from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.standin import make_batch, record


def outer(worker, model_worker_batch):
    def inner(snapshot: ModelWorkerBatch):
        record("inner", snapshot.seq_lens)
        return worker.forward_batch_generation(model_worker_batch)

    return inner(make_batch(seq_lens=[7, 8]).get_model_worker_batch())


def main():
    return outer(TpModelWorker(), make_batch().get_model_worker_batch())
