# expect: same
"""`if self.enable_trace:` set from the environment, whose branch calls the old method, is migrated like any code."""
import os

from sglang.srt.managers.schedule_batch import ScheduleBatch
from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.standin import make_batch, record


class Runner:
    def __init__(self):
        self.enable_trace = os.environ.get("MYFORK_TRACE", "1") == "1"
        self.worker = TpModelWorker()

    def run_batch(self, batch: ScheduleBatch):
        if self.enable_trace:
            traced = batch.get_model_worker_batch()
            record("trace", (list(traced.seq_lens), traced.forward_mode))
        model_worker_batch = batch.get_model_worker_batch()
        return self.worker.forward_batch_generation(model_worker_batch)


def main():
    return Runner().run_batch(make_batch())
