# expect: same
"""A debug flag whose branch merely reads the old object is no gate: the function migrates."""
import os

from sglang.srt.managers.schedule_batch import ScheduleBatch
from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.standin import make_batch, record


def run_batch(worker: TpModelWorker, batch: ScheduleBatch):
    model_worker_batch = batch.get_model_worker_batch()
    if os.environ.get("SGLANG_DEBUG_BATCHES"):
        record("debug", list(model_worker_batch.seq_lens))
    return worker.forward_batch_generation(model_worker_batch)


def main():
    os.environ["SGLANG_DEBUG_BATCHES"] = "1"
    try:
        return run_batch(TpModelWorker(), make_batch())
    finally:
        del os.environ["SGLANG_DEBUG_BATCHES"]
