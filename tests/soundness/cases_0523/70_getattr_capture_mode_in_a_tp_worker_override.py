# expect: reported MWB104
"""A TpModelWorker subclass reads the capture mode with getattr and a default.

A constant `getattr` reads the field as `x.capture_hidden_mode` does: the old object's derived mode,
which 0.5.23's batch does not have."""

from sglang.srt.managers.schedule_batch import ModelWorkerBatch
from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.srt.speculative.eagle_worker_v2 import EAGLEWorkerV2
from sglang.standin import make_batch, record, schedule


class LoggingTp(TpModelWorker):
    def forward_batch_generation(self, model_worker_batch: ModelWorkerBatch, forward_batch=None):
        record("mode", getattr(model_worker_batch, "capture_hidden_mode", None))
        return super().forward_batch_generation(model_worker_batch, forward_batch)


def main():
    return schedule(EAGLEWorkerV2(target_worker=LoggingTp()), make_batch(algorithm="EAGLE"))
