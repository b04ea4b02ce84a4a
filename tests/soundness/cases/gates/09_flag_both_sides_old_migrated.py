# expect: same
"""An environment flag whose two sides both use the old API chooses nothing: both migrate."""
import os

from sglang.srt.managers.schedule_batch import ScheduleBatch
from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.standin import make_batch, record

VERBOSE = os.environ.get("MYFORK_VERBOSE", "1") == "1"


def run_batch(worker: TpModelWorker, batch: ScheduleBatch):
    if VERBOSE:
        model_worker_batch = batch.get_model_worker_batch()
        record("verbose", list(model_worker_batch.seq_lens))
        return worker.forward_batch_generation(model_worker_batch)
    else:
        model_worker_batch = batch.get_model_worker_batch()
        return worker.forward_batch_generation(model_worker_batch)


def main():
    return run_batch(TpModelWorker(), make_batch())
