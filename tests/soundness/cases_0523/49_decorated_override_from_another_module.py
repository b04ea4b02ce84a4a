# expect: reported MWB188
"""An override wrapped by a decorator from another module whose wrapper has a fixed signature
`(self, batch)`: what 0.5.23's spec-v2 caller passes besides the batch meets the wrapper first,
which the rewrite does not adapt, so the override is reported."""

from sglang.srt.managers.schedule_batch import ModelWorkerBatch
from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.srt.speculative.eagle_worker_v2 import EAGLEWorkerV2
from sglang.standin import make_batch, record, schedule

from .decorators import traced


class TracedTp(TpModelWorker):
    @traced
    def forward_batch_generation(self, model_worker_batch: ModelWorkerBatch, forward_batch=None):
        record("tp", model_worker_batch.forward_mode)
        return super().forward_batch_generation(model_worker_batch, forward_batch)


def main():
    worker = EAGLEWorkerV2(target_worker=TracedTp())
    return schedule(worker, make_batch(algorithm="EAGLE"))


# --- module: plugin/decorators.py ---
import functools

from sglang.standin import record


def traced(method):
    @functools.wraps(method)
    def wrapper(self, batch):
        record("wrapped", type(batch).__name__)
        return method(self, batch)

    return wrapper
