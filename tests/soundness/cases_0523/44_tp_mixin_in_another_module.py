# expect: same
"""A mixin in another module overrides a `TpModelWorker` subclass's forward, which a spec-v2 worker
calls with the capture mode: the mixin must take what the target passes and hand it on."""

from sglang.srt.speculative.eagle_worker_v2 import EAGLEWorkerV2
from sglang.standin import make_batch, schedule

from .workers import LoggingTp


def main():
    worker = EAGLEWorkerV2(target_worker=LoggingTp())
    return schedule(worker, make_batch(algorithm="EAGLE"))


# --- module: plugin/mixins.py ---
from sglang.srt.managers.schedule_batch import ModelWorkerBatch
from sglang.standin import record


class LoggingMixin:
    def forward_batch_generation(self, model_worker_batch: ModelWorkerBatch, forward_batch=None):
        record("tp", model_worker_batch.forward_mode)
        return super().forward_batch_generation(model_worker_batch, forward_batch)


# --- module: plugin/workers.py ---
from sglang.srt.managers.tp_worker import TpModelWorker

from .mixins import LoggingMixin


class LoggingTp(LoggingMixin, TpModelWorker):
    pass
