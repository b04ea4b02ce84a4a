# expect: same
"""A tuple naming both classes matched both before, and matches the batch now."""
from sglang.srt.managers.schedule_batch import ModelWorkerBatch, ScheduleBatch
from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.srt.model_executor.forward_batch_info import CaptureHiddenMode, ForwardBatch, ForwardMode
from sglang.standin import make_batch, record


def is_batch(obj):
    return isinstance(obj, (ScheduleBatch, ModelWorkerBatch))


def main():
    batch = make_batch()
    record("old", is_batch(batch.get_model_worker_batch()))
    record("batch", is_batch(batch))
    record("int", is_batch(1))
