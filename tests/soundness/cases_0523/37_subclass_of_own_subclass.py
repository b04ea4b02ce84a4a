# expect: same
"""A subclass of the fork's own EAGLE subclass, which overrides the forward again."""

from sglang.srt.managers.schedule_batch import ModelWorkerBatch
from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.srt.speculative.eagle_worker_v2 import EAGLEWorkerV2
from sglang.standin import make_batch, record, schedule


class ForkEagle(EAGLEWorkerV2):
    def forward_batch_generation(self, model_worker_batch: ModelWorkerBatch):
        record("fork", model_worker_batch.seq_lens)
        return super().forward_batch_generation(model_worker_batch)


class TunedEagle(ForkEagle):
    def forward_batch_generation(self, model_worker_batch: ModelWorkerBatch):
        record("tuned", len(model_worker_batch.seq_lens))
        return super().forward_batch_generation(model_worker_batch)


def main():
    worker = TunedEagle(target_worker=TpModelWorker())
    return schedule(worker, make_batch(algorithm="EAGLE", grammar=True), grammar=True)
