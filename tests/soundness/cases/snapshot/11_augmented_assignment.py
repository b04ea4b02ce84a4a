# expect: same
"""An augmented assignment rebinding an immutable field of the batch."""
from sglang.srt.managers.schedule_batch import ModelWorkerBatch, ScheduleBatch
from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.srt.model_executor.forward_batch_info import CaptureHiddenMode, ForwardBatch, ForwardMode
from sglang.standin import make_batch, record


def main():
    batch = make_batch(input_ids=(11, 12))
    worker = TpModelWorker()
    model_worker_batch = batch.get_model_worker_batch()
    batch.input_ids += (13,)
    worker.forward_batch_generation(model_worker_batch)
