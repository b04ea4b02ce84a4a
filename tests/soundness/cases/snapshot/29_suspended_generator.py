# expect: same
"""The function is suspended at a yield between the snapshot and the forward; its driver changes the batch."""
from sglang.srt.managers.schedule_batch import ModelWorkerBatch, ScheduleBatch
from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.srt.model_executor.forward_batch_info import CaptureHiddenMode, ForwardBatch, ForwardMode
from sglang.standin import make_batch, record


def _steps(batch, worker):
    model_worker_batch = batch.get_model_worker_batch()
    yield "snapshot"
    worker.forward_batch_generation(model_worker_batch)


def main():
    batch = make_batch()
    worker = TpModelWorker()
    steps = _steps(batch, worker)
    next(steps)
    batch.seq_lens = [3, 3]
    for _ in steps:
        pass
