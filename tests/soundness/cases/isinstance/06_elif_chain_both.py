# expect: reported MWB150
"""A dispatch on both classes: the old object and the batch can no longer be told apart."""
from sglang.srt.managers.schedule_batch import ModelWorkerBatch, ScheduleBatch
from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.srt.model_executor.forward_batch_info import CaptureHiddenMode, ForwardBatch, ForwardMode
from sglang.standin import make_batch, record


def dispatch(item):
    if isinstance(item, ModelWorkerBatch):
        return "worker batch"
    elif isinstance(item, ScheduleBatch):
        return "schedule batch"
    return "other"


def main():
    batch = make_batch()
    record("old", dispatch(batch.get_model_worker_batch()))
    record("batch", dispatch(batch))
    record("int", dispatch(3))
