# expect: reported MWB183
"""Adversary of the window's end: the snapshot's last use is inside a callback, which runs after
the request list is reordered; the whole function is the window."""
from sglang.srt.managers.schedule_batch import ModelWorkerBatch, ScheduleBatch
from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.srt.model_executor.forward_batch_info import CaptureHiddenMode, ForwardBatch, ForwardMode
from sglang.standin import make_batch, record, run_batch


def reorder(reqs):
    reqs.reverse()


class Verifier:
    def __init__(self):
        self.target_worker = TpModelWorker()

    def verify(self, batch: ScheduleBatch):
        model_worker_batch = batch.get_model_worker_batch()
        pending = lambda: self.target_worker.forward_batch_generation(model_worker_batch)  # noqa: E731
        reorder(batch.reqs)
        return pending()


def main():
    return Verifier().verify(make_batch(has_grammar=True))
