# expect: same
"""A composition proxy, defined in another module, installed as an EAGLE worker's target worker."""

from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.srt.speculative.eagle_worker_v2 import EAGLEWorkerV2
from sglang.standin import make_batch, schedule

from .proxies import TimedTarget


def main():
    worker = EAGLEWorkerV2(target_worker=TimedTarget(TpModelWorker()))
    return schedule(worker, make_batch(algorithm="EAGLE"))


# --- module: plugin/proxies.py ---
from sglang.srt.managers.schedule_batch import ModelWorkerBatch
from sglang.standin import record


class TimedTarget:
    def __init__(self, inner):
        self.inner = inner

    def __getattr__(self, name):
        return getattr(self.inner, name)

    def forward_batch_generation(self, model_worker_batch: ModelWorkerBatch, **kwargs):
        record("timed", model_worker_batch.seq_lens)
        return self.inner.forward_batch_generation(model_worker_batch, **kwargs)
