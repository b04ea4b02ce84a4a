# expect: reported MWB152
"""A public alias of the class tested with isinstance on the long-lived batch."""
from sglang.srt.managers.schedule_batch import ModelWorkerBatch, ScheduleBatch
from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.srt.model_executor.forward_batch_info import CaptureHiddenMode, ForwardBatch, ForwardMode
from sglang.standin import make_batch, record

Snapshot = ModelWorkerBatch


def main():
    batch = make_batch()
    record("batch is snapshot", isinstance(batch, Snapshot))
    model_worker_batch = batch.get_model_worker_batch()
    return TpModelWorker().forward_batch_generation(model_worker_batch)
