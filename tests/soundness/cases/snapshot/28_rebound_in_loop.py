# expect: same
"""The receiver is rebound after the use, inside the loop around it."""
from sglang.srt.managers.schedule_batch import ModelWorkerBatch, ScheduleBatch
from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.srt.model_executor.forward_batch_info import CaptureHiddenMode, ForwardBatch, ForwardMode
from sglang.standin import make_batch, record


def main():
    batch = make_batch()
    worker = TpModelWorker()
    model_worker_batch = batch.get_model_worker_batch()
    for nxt in [make_batch(seq_lens=[5, 5]), make_batch(seq_lens=[6, 6])]:
        worker.forward_batch_generation(model_worker_batch)
        batch = nxt
    record("last", batch.seq_lens)
