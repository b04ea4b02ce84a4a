# expect: same
"""A wrapper installed as the scheduler's worker by composition: it holds the real worker."""

from sglang.srt.managers.schedule_batch import ModelWorkerBatch
from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.srt.speculative.eagle_worker_v2 import EAGLEWorkerV2
from sglang.standin import make_batch, record, schedule


class TimedWorker:
    def __init__(self, inner):
        self.inner = inner

    def forward_batch_generation(self, model_worker_batch: ModelWorkerBatch):
        record("timed", model_worker_batch.seq_lens)
        return self.inner.forward_batch_generation(model_worker_batch)


def main():
    worker = TimedWorker(EAGLEWorkerV2(target_worker=TpModelWorker()))
    return schedule(worker, make_batch(algorithm="EAGLE"))
