# expect: same
"""A `TpModelWorker` subclass in another module whose override is decorated with `torch.no_grad()`,
which hands every argument on: the override gains what the spec-v2 caller passes, and nothing is
reported."""

from sglang.srt.speculative.eagle_worker_v2 import EAGLEWorkerV2
from sglang.standin import make_batch, schedule

from .workers import QuietTp


def main():
    worker = EAGLEWorkerV2(target_worker=QuietTp())
    return schedule(worker, make_batch(algorithm="EAGLE"))


# --- module: plugin/workers.py ---
import torch
from sglang.srt.managers.schedule_batch import ModelWorkerBatch
from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.standin import record


class QuietTp(TpModelWorker):
    @torch.no_grad()
    def forward_batch_generation(self, model_worker_batch: ModelWorkerBatch, forward_batch=None):
        record("tp", model_worker_batch.forward_mode)
        return super().forward_batch_generation(model_worker_batch, forward_batch)
