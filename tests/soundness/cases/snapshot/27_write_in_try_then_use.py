# expect: same
"""A write inside try; the use after the handler may follow it."""
from sglang.srt.managers.schedule_batch import ModelWorkerBatch, ScheduleBatch
from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.srt.model_executor.forward_batch_info import CaptureHiddenMode, ForwardBatch, ForwardMode
from sglang.standin import make_batch, record


def main():
    batch = make_batch()
    worker = TpModelWorker()
    model_worker_batch = batch.get_model_worker_batch()
    try:
        batch.seq_lens = [4, 4]
        raise ValueError("retry")
    except ValueError:
        pass
    worker.forward_batch_generation(model_worker_batch)
