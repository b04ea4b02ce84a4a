# expect: same
"""A typed fork: the snapshot bound with an annotation, capture mode written once, forwarded twice
(a second target pass after the lengths grow).

An annotated binding is a kept snapshot as a plain one is."""

from sglang.srt.managers.schedule_batch import ModelWorkerBatch
from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.srt.model_executor.forward_batch_info import CaptureHiddenMode
from sglang.standin import make_batch


class Drafter:
    def __init__(self, target_worker):
        self.target_worker = target_worker

    def step(self, batch):
        mwb: ModelWorkerBatch = batch.get_model_worker_batch()
        mwb.capture_hidden_mode = CaptureHiddenMode.FULL
        first = self.target_worker.forward_batch_generation(mwb)
        batch.seq_lens = [5, 6]
        second = self.target_worker.forward_batch_generation(mwb)
        return first, second


def main():
    return Drafter(TpModelWorker()).step(make_batch())
