# expect: same
"""A flag set in a guarded import's try/except gates its readers."""
from sglang.srt.managers.schedule_batch import ScheduleBatch
from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.standin import make_batch

try:
    from sglang.srt.managers.schedule_batch import ModelWorkerBatch

    LEGACY = True
except ImportError:
    LEGACY = False


def run_batch(worker: TpModelWorker, batch: ScheduleBatch):
    worker_batch = batch.get_model_worker_batch() if LEGACY else batch
    return worker.forward_batch_generation(worker_batch)


def main():
    return run_batch(TpModelWorker(), make_batch())
