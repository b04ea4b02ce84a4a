# expect: same
"""A star import from SGLang's schedule_batch binds the class: an annotated parameter is migrated."""
from sglang.srt.managers.schedule_batch import *
from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.standin import make_batch, record


def _forward(worker: TpModelWorker, snapshot: ModelWorkerBatch):
    record("extend", snapshot.extend_seq_lens)
    return worker.forward_batch_generation(snapshot)


def main():
    batch = make_batch()
    return _forward(TpModelWorker(), batch.get_model_worker_batch())
