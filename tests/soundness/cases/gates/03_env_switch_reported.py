# expect: reported MWB122
"""An environment switch that picks the old API is kept: on 0.5.13 the legacy setting breaks, and that is said."""
import os

from sglang.srt.managers.schedule_batch import ScheduleBatch
from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.standin import make_batch


def run_batch(worker: TpModelWorker, batch: ScheduleBatch):
    if os.environ.get("MYFORK_LEGACY_BATCH_API", "0") == "1":
        model_worker_batch = batch.get_model_worker_batch()
        return worker.forward_batch_generation(model_worker_batch)
    return worker.forward_batch_generation(batch)


def main():
    os.environ["MYFORK_LEGACY_BATCH_API"] = "1"
    try:
        return run_batch(TpModelWorker(), make_batch())
    finally:
        del os.environ["MYFORK_LEGACY_BATCH_API"]
