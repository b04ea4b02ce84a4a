# expect: same
"""A gate keeps its own function; the rest of the file still migrates."""
from sglang.srt.managers.schedule_batch import ModelWorkerBatch, ScheduleBatch
from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.standin import make_batch, record


def compat_seq_lens(batch: ScheduleBatch):
    if hasattr(batch, "get_model_worker_batch"):
        return list(batch.get_model_worker_batch().seq_lens)
    return list(batch.seq_lens)


def run_batch(worker: TpModelWorker, model_worker_batch: ModelWorkerBatch):
    record("extend", list(model_worker_batch.extend_seq_lens))
    return worker.forward_batch_generation(model_worker_batch)


def main():
    batch = make_batch()
    record("compat", compat_seq_lens(batch))
    return run_batch(TpModelWorker(), batch.get_model_worker_batch())
