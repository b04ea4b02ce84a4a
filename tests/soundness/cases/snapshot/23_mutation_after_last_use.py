# expect: same
"""Writes, method calls and hand-offs of the batch only after the snapshot's last use."""
from sglang.srt.managers.schedule_batch import ModelWorkerBatch, ScheduleBatch
from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.srt.model_executor.forward_batch_info import CaptureHiddenMode, ForwardBatch, ForwardMode
from sglang.standin import make_batch, record


def _touch(b):
    b.seq_lens = [0, 0]


def main():
    batch = make_batch()
    worker = TpModelWorker()
    model_worker_batch = batch.get_model_worker_batch()
    result = worker.forward_batch_generation(model_worker_batch)
    record("lens", model_worker_batch.seq_lens)
    batch.seq_lens = [9, 9]
    batch.prepare_for_decode()
    _touch(batch)
    record("batch", batch.seq_lens)
    return result
