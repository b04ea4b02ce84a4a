# expect: same
"""Writes and method calls on another batch, not the snapshot's."""
from sglang.srt.managers.schedule_batch import ModelWorkerBatch, ScheduleBatch
from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.srt.model_executor.forward_batch_info import CaptureHiddenMode, ForwardBatch, ForwardMode
from sglang.standin import make_batch, record


def main():
    batch = make_batch()
    other = make_batch()
    worker = TpModelWorker()
    model_worker_batch = batch.get_model_worker_batch()
    other.seq_lens = [9, 9]
    other.prepare_for_decode()
    worker.forward_batch_generation(model_worker_batch)
    record("other", other.seq_lens)
