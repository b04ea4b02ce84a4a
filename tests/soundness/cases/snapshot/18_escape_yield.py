# expect: same
"""A generator yields the snapshot; the consumer changes the batch before using it."""
from sglang.srt.managers.schedule_batch import ModelWorkerBatch, ScheduleBatch
from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.srt.model_executor.forward_batch_info import CaptureHiddenMode, ForwardBatch, ForwardMode
from sglang.standin import make_batch, record


def _snapshots(batch):
    model_worker_batch = batch.get_model_worker_batch()
    yield model_worker_batch


def main():
    batch = make_batch()
    worker = TpModelWorker()
    for snap in _snapshots(batch):
        batch.seq_lens = [1, 2]
        worker.forward_batch_generation(snap)
