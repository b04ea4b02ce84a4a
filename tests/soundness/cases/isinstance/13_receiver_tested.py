# expect: reported MWB150
"""A function that takes either: it snapshots a ScheduleBatch and passes a snapshot through."""
from sglang.srt.managers.schedule_batch import ModelWorkerBatch, ScheduleBatch
from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.srt.model_executor.forward_batch_info import CaptureHiddenMode, ForwardBatch, ForwardMode
from sglang.standin import make_batch, record


def forward(batch):
    if isinstance(batch, ModelWorkerBatch):
        model_worker_batch = batch
    else:
        model_worker_batch = batch.get_model_worker_batch()
        record("snapshotted")
    return TpModelWorker().forward_batch_generation(model_worker_batch)


def main():
    batch = make_batch()
    forward(batch)
    forward(batch.get_model_worker_batch())
