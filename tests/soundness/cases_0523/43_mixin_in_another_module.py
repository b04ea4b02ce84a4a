# expect: same
"""The override sits in a mixin defined in another module; the worker there is
`class W(Mixin, EAGLEWorkerV2)`."""

from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.standin import make_batch, schedule

from .workers import MyEagle


def main():
    worker = MyEagle(target_worker=TpModelWorker())
    return schedule(worker, make_batch(algorithm="EAGLE", grammar=True), grammar=True)


# --- module: plugin/mixins.py ---
from sglang.srt.managers.schedule_batch import ModelWorkerBatch
from sglang.standin import record


class TracingMixin:
    def forward_batch_generation(self, model_worker_batch: ModelWorkerBatch):
        record("traced", model_worker_batch.seq_lens)
        return super().forward_batch_generation(model_worker_batch)


# --- module: plugin/workers.py ---
from sglang.srt.speculative.eagle_worker_v2 import EAGLEWorkerV2

from .mixins import TracingMixin


class MyEagle(TracingMixin, EAGLEWorkerV2):
    pass
