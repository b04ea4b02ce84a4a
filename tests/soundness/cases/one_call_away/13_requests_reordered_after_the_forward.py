# expect: same unmarked
"""A kept snapshot's function hands the request list to a call that reorders it, after the
forward, its last use: the forward has read the requests by then."""
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
        record("before", len(batch.reqs))
        result = self.target_worker.forward_batch_generation(model_worker_batch)
        reorder(batch.reqs)
        return result


def main():
    batch = make_batch(has_grammar=True)
    return Verifier().verify(batch), [req.rid for req in batch.reqs]
