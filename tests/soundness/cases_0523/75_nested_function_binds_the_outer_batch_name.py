# expect: same
"""A draft step that builds from the live window, with a nested retry helper that takes its own
worker batch under the scheduler batch's name.

A nested function's own snapshot is not the outer function's: the outer live batch is not read as
one (0.5.23's batch has no override fields)."""

from sglang.srt.managers.schedule_batch import ScheduleBatch
from sglang.srt.model_executor.forward_batch_info import ForwardBatch
from sglang.srt.model_executor.model_runner import ModelRunner
from sglang.standin import make_batch, record


class Drafter:
    def __init__(self):
        self.runner = ModelRunner()

    def draft(self, batch: ScheduleBatch):
        def retry(sched):
            batch = sched.get_model_worker_batch(sched.seq_lens_cpu)
            return ForwardBatch.init_new(batch, self.runner)

        self.retry = retry
        model_worker_batch = batch.get_model_worker_batch()
        fb = ForwardBatch.init_new(model_worker_batch, self.runner)
        record("mode", fb.observed["capture_hidden_mode"])
        return fb


def main():
    return Drafter().draft(make_batch())
