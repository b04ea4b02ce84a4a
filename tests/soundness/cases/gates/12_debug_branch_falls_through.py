# expect: same
"""A debug branch that calls the old method and falls through adds work, chooses nothing: migrated."""
import os

from sglang.srt.managers.schedule_batch import ScheduleBatch
from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.standin import make_batch, record


def get_bool_env_var(name: str) -> bool:
    return os.environ.get(name, "false").lower() in ("1", "true")


def run_batch(worker: TpModelWorker, batch: ScheduleBatch):
    if not get_bool_env_var("MYFORK_QUIET"):
        snapshot = batch.get_model_worker_batch()
        record("dump", (list(snapshot.seq_lens), list(snapshot.extend_seq_lens)))
    return worker.forward_batch_generation(batch.get_model_worker_batch())


def main():
    return run_batch(TpModelWorker(), make_batch())
