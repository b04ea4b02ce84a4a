# expect: same
"""A TpModelWorker subclass that logs and defers to the base, called by a spec-v2 worker."""

from sglang.srt.managers.schedule_batch import ModelWorkerBatch
from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.srt.speculative.eagle_worker_v2 import EAGLEWorkerV2
from sglang.standin import make_batch, record, schedule


class LoggingTp(TpModelWorker):
    def forward_batch_generation(self, model_worker_batch: ModelWorkerBatch, forward_batch=None):
        record("tp", model_worker_batch.forward_mode)
        return super().forward_batch_generation(model_worker_batch, forward_batch)


def main():
    worker = EAGLEWorkerV2(target_worker=LoggingTp())
    return schedule(worker, make_batch(algorithm="EAGLE"))
