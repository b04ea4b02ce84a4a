# expect: same
"""Keywords to a renamed `__init__`, to a function through a local alias, and to a nested function."""
from sglang.srt.managers.schedule_batch import ModelWorkerBatch, ScheduleBatch
from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.srt.model_executor.forward_batch_info import CaptureHiddenMode, ForwardBatch, ForwardMode
from sglang.standin import make_batch, record


class Snapshot:
    def __init__(self, model_worker_batch: ModelWorkerBatch):
        self.seq_lens = list(model_worker_batch.seq_lens)


def _measure(model_worker_batch: ModelWorkerBatch):
    return len(model_worker_batch.seq_lens)


def collect(model_worker_batch: ModelWorkerBatch):
    def visit(model_worker_batch: ModelWorkerBatch):
        return model_worker_batch.forward_mode

    measure = _measure
    snapshot = Snapshot(model_worker_batch=model_worker_batch)
    return snapshot.seq_lens, measure(model_worker_batch=model_worker_batch), visit(model_worker_batch=model_worker_batch)


def main():
    batch = make_batch()
    return collect(batch.get_model_worker_batch())
