# expect: same
"""A write to the snapshot now lands on the scheduler's batch, which a later reader sees."""
from sglang.srt.managers.schedule_batch import ModelWorkerBatch, ScheduleBatch
from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.srt.model_executor.forward_batch_info import CaptureHiddenMode, ForwardBatch, ForwardMode
from sglang.standin import make_batch, record


def main():
    batch = make_batch()
    worker = TpModelWorker()
    model_worker_batch = batch.get_model_worker_batch()
    model_worker_batch.seq_lens = [1, 1]
    worker.forward_batch_generation(model_worker_batch)
    record("scheduler sees", batch.seq_lens)
