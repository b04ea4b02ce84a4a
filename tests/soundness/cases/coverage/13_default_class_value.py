# expect: reported MWB152
"""The class as a parameter default, tested with isinstance against the long-lived batch."""
from sglang.srt.managers.schedule_batch import ModelWorkerBatch, ScheduleBatch
from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.srt.model_executor.forward_batch_info import CaptureHiddenMode, ForwardBatch, ForwardMode
from sglang.standin import make_batch, record


def is_snapshot(value, kind=ModelWorkerBatch):
    return isinstance(value, kind)


def main():
    batch = make_batch()
    record("batch", is_snapshot(batch))
    model_worker_batch = batch.get_model_worker_batch()
    return TpModelWorker().forward_batch_generation(model_worker_batch)
