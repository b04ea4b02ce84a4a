# expect: same
"""The write is on a branch that cannot reach the snapshot's use."""
from sglang.srt.managers.schedule_batch import ModelWorkerBatch, ScheduleBatch
from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.srt.model_executor.forward_batch_info import CaptureHiddenMode, ForwardBatch, ForwardMode
from sglang.standin import make_batch, record


def _run(batch, worker, decode):
    if decode:
        batch.seq_lens = [1, 1]
        batch.prepare_for_decode()
    else:
        model_worker_batch = batch.get_model_worker_batch()
        worker.forward_batch_generation(model_worker_batch)


def main():
    worker = TpModelWorker()
    _run(make_batch(), worker, False)
    _run(make_batch(), worker, True)
