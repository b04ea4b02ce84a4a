# expect: reported MWB188
"""`forward_batch_generation = traced_forward` in a class body, the function defined in another
module: 0.5.23's callers pass the worker keywords the function does not take, and only a method
defined in the class body is given them, so the assignment is reported."""

from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.srt.speculative.eagle_worker_v2 import EAGLEWorkerV2
from sglang.standin import make_batch, schedule

from .forwards import traced_forward


class TracedEagle(EAGLEWorkerV2):
    forward_batch_generation = traced_forward


def main():
    worker = TracedEagle(target_worker=TpModelWorker())
    return schedule(worker, make_batch(algorithm="EAGLE"))


# --- module: plugin/forwards.py ---
from sglang.srt.managers.schedule_batch import ModelWorkerBatch
from sglang.srt.speculative.eagle_worker_v2 import EAGLEWorkerV2
from sglang.standin import record


def traced_forward(self, model_worker_batch: ModelWorkerBatch):
    record("traced", model_worker_batch.seq_lens)
    return EAGLEWorkerV2.forward_batch_generation(self, model_worker_batch)
