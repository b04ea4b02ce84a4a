# expect: reported MWB183
"""Adversary of the window's end: the snapshot is kept in an attribute, the request list is
reordered after its last use in the function, and a later forward reads the kept snapshot."""
from sglang.srt.managers.schedule_batch import ModelWorkerBatch, ScheduleBatch
from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.srt.model_executor.forward_batch_info import CaptureHiddenMode, ForwardBatch, ForwardMode
from sglang.standin import make_batch, record, run_batch


def reorder(reqs):
    reqs.reverse()


class Verifier:
    def __init__(self):
        self.target_worker = TpModelWorker()

    def prepare(self, batch: ScheduleBatch):
        model_worker_batch = batch.get_model_worker_batch()
        self.pending = model_worker_batch
        reorder(batch.reqs)

    def run(self):
        return self.target_worker.forward_batch_generation(self.pending)


def main():
    verifier = Verifier()
    verifier.prepare(make_batch(has_grammar=True))
    return verifier.run()
