# expect: reported MWB150
"""The same helper also sees the ScheduleBatch itself, which it did not match before."""
from sglang.srt.managers.schedule_batch import ModelWorkerBatch, ScheduleBatch
from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.srt.model_executor.forward_batch_info import CaptureHiddenMode, ForwardBatch, ForwardMode
from sglang.standin import make_batch, record


def unwrap(obj):
    if isinstance(obj, ModelWorkerBatch):
        return "snapshot"
    return "as is"


def main():
    batch = make_batch()
    record("old", unwrap(batch.get_model_worker_batch()))
    record("batch", unwrap(batch))
