# expect: same
"""A worker two classes down from EAGLEWorkerV2, through a class of the module."""

from sglang.srt.managers.schedule_batch import ModelWorkerBatch
from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.srt.speculative.eagle_worker_v2 import EAGLEWorkerV2
from sglang.standin import make_batch, record, schedule


class Base(EAGLEWorkerV2):
    def describe(self):
        return "base"


class Leaf(Base):
    def forward_batch_generation(self, model_worker_batch: ModelWorkerBatch):
        record("leaf", self.describe())
        return super().forward_batch_generation(model_worker_batch)


def main():
    worker = Leaf(target_worker=TpModelWorker())
    return schedule(worker, make_batch(algorithm="EAGLE", grammar=True), grammar=True)
