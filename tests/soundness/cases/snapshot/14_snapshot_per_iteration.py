# expect: same
"""A fresh snapshot each iteration: the change at the end of the loop precedes the next snapshot, not a use."""
from sglang.srt.managers.schedule_batch import ModelWorkerBatch, ScheduleBatch
from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.srt.model_executor.forward_batch_info import CaptureHiddenMode, ForwardBatch, ForwardMode
from sglang.standin import make_batch, record


def main():
    batch = make_batch()
    worker = TpModelWorker()
    for _ in range(2):
        model_worker_batch = batch.get_model_worker_batch()
        worker.forward_batch_generation(model_worker_batch)
        batch.prepare_for_decode()
