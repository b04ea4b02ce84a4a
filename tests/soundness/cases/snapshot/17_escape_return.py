# expect: same
"""A helper returns the snapshot; its caller changes the batch and forwards what it got."""
from sglang.srt.managers.schedule_batch import ModelWorkerBatch, ScheduleBatch
from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.srt.model_executor.forward_batch_info import CaptureHiddenMode, ForwardBatch, ForwardMode
from sglang.standin import make_batch, record


def _snapshot(batch):
    model_worker_batch = batch.get_model_worker_batch()
    return model_worker_batch


def main():
    batch = make_batch()
    worker = TpModelWorker()
    snap = _snapshot(batch)
    batch.prepare_for_decode()
    worker.forward_batch_generation(snap)
