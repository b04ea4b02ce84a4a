# expect: same
"""The snapshot is bound to another name through a conditional expression, then the batch changes."""
from sglang.srt.managers.schedule_batch import ModelWorkerBatch, ScheduleBatch
from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.srt.model_executor.forward_batch_info import CaptureHiddenMode, ForwardBatch, ForwardMode
from sglang.standin import make_batch, record


def main():
    batch = make_batch()
    worker = TpModelWorker()
    model_worker_batch = batch.get_model_worker_batch()
    chosen = model_worker_batch if batch.seq_lens else None
    batch.seq_lens = [9, 9]
    worker.forward_batch_generation(chosen)
