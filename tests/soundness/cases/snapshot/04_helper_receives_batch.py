# expect: same
"""The batch is handed to a helper that changes it, between the snapshot and the forward."""
from sglang.srt.managers.schedule_batch import ModelWorkerBatch, ScheduleBatch
from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.srt.model_executor.forward_batch_info import CaptureHiddenMode, ForwardBatch, ForwardMode
from sglang.standin import make_batch, record


def _shrink(b):
    b.seq_lens = [1, 1]


def main():
    batch = make_batch()
    worker = TpModelWorker()
    model_worker_batch = batch.get_model_worker_batch()
    _shrink(batch)
    worker.forward_batch_generation(model_worker_batch)
