# expect: same
"""isinstance on a local bound from get_model_worker_batch: true before, and must stay true."""
from sglang.srt.managers.schedule_batch import ModelWorkerBatch, ScheduleBatch
from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.srt.model_executor.forward_batch_info import CaptureHiddenMode, ForwardBatch, ForwardMode
from sglang.standin import make_batch, record


def main():
    batch = make_batch()
    model_worker_batch = batch.get_model_worker_batch()
    if isinstance(model_worker_batch, ModelWorkerBatch):
        TpModelWorker().forward_batch_generation(model_worker_batch)
    else:
        record("skipped")
