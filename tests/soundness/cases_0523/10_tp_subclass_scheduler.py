# expect: same
"""A TpModelWorker subclass driven by the scheduler without speculation, non-overlap."""

from sglang.srt.managers.schedule_batch import ModelWorkerBatch
from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.standin import make_batch, schedule


class MyTp(TpModelWorker):
    def forward_batch_generation(self, model_worker_batch: ModelWorkerBatch):
        return super().forward_batch_generation(model_worker_batch)


def main():
    return [schedule(MyTp(), make_batch(), overlap=False), schedule(MyTp(), make_batch())]
