# expect: same
"""A subclass of the fork's own EAGLE subclass, the two in different modules, each overriding the
forward."""

from sglang.srt.managers.schedule_batch import ModelWorkerBatch
from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.standin import make_batch, record, schedule

from .base import ForkEagle


class TunedEagle(ForkEagle):
    def forward_batch_generation(self, model_worker_batch: ModelWorkerBatch):
        record("tuned", len(model_worker_batch.seq_lens))
        return super().forward_batch_generation(model_worker_batch)


def main():
    worker = TunedEagle(target_worker=TpModelWorker())
    return schedule(worker, make_batch(algorithm="EAGLE", grammar=True), grammar=True)


# --- module: plugin/base.py ---
from sglang.srt.managers.schedule_batch import ModelWorkerBatch
from sglang.srt.speculative.eagle_worker_v2 import EAGLEWorkerV2
from sglang.standin import record


class ForkEagle(EAGLEWorkerV2):
    def forward_batch_generation(self, model_worker_batch: ModelWorkerBatch):
        record("fork", model_worker_batch.seq_lens)
        return super().forward_batch_generation(model_worker_batch)
