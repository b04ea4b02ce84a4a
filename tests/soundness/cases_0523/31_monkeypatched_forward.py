# expect: same
"""forward_batch_generation replaced by monkeypatching the class."""

from sglang.srt.managers.schedule_batch import ModelWorkerBatch
from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.srt.speculative.eagle_worker_v2 import EAGLEWorkerV2
from sglang.standin import make_batch, record, schedule

_original = EAGLEWorkerV2.forward_batch_generation


def traced_forward(self, model_worker_batch: ModelWorkerBatch):
    record("patched", model_worker_batch.seq_lens)
    return _original(self, model_worker_batch)


EAGLEWorkerV2.forward_batch_generation = traced_forward


def main():
    worker = EAGLEWorkerV2(target_worker=TpModelWorker())
    return schedule(worker, make_batch(algorithm="EAGLE"))
