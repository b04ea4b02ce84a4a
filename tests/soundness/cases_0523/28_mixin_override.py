# expect: same
"""The override sits in a mixin with no SGLang base; the worker is `class W(Mixin, EAGLEWorkerV2)`."""

from sglang.srt.managers.schedule_batch import ModelWorkerBatch
from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.srt.speculative.eagle_worker_v2 import EAGLEWorkerV2
from sglang.standin import make_batch, record, schedule


class TracingMixin:
    def forward_batch_generation(self, model_worker_batch: ModelWorkerBatch):
        record("traced", model_worker_batch.seq_lens)
        return super().forward_batch_generation(model_worker_batch)


class MyEagle(TracingMixin, EAGLEWorkerV2):
    pass


def main():
    worker = MyEagle(target_worker=TpModelWorker())
    return schedule(worker, make_batch(algorithm="EAGLE", grammar=True), grammar=True)
