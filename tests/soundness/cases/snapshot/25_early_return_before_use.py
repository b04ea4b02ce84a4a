# expect: same
"""The write sits on a path that returns before the use."""
from sglang.srt.managers.schedule_batch import ModelWorkerBatch, ScheduleBatch
from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.srt.model_executor.forward_batch_info import CaptureHiddenMode, ForwardBatch, ForwardMode
from sglang.standin import make_batch, record


def _run(batch, worker, stop):
    model_worker_batch = batch.get_model_worker_batch()
    if stop:
        batch.seq_lens = [1, 1]
        return None
    return worker.forward_batch_generation(model_worker_batch)


def main():
    worker = TpModelWorker()
    record("stopped", _run(make_batch(), worker, True))
    record("ran", _run(make_batch(), worker, False))
