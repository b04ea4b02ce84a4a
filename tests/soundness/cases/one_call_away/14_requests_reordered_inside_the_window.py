# expect: reported MWB183
"""Adversary of the window's end: the request list is reordered between the snapshot and the
forward, where the old object had read the requests' values already."""
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
        reorder(batch.reqs)
        return self.target_worker.forward_batch_generation(model_worker_batch)


def main():
    return Verifier().verify(make_batch(has_grammar=True))
