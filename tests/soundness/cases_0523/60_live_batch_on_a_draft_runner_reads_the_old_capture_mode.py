# expect: same
"""The live batch, proven the same in the window, handed to `init_new` on a draft runner: the old
object's derived capture mode (FULL, from the batch's request for hidden states) is passed, where
0.5.17's `init_new` ignores that request on a draft runner."""

from sglang.srt.managers.schedule_batch import ScheduleBatch
from sglang.srt.model_executor.forward_batch_info import ForwardBatch
from sglang.srt.model_executor.model_runner import ModelRunner
from sglang.standin import make_batch, record


class DraftRunner(ModelRunner):
    is_draft_worker = True


def draft(batch: ScheduleBatch, runner):
    model_worker_batch = batch.get_model_worker_batch()
    forward_batch = ForwardBatch.init_new(model_worker_batch, runner)
    record("mode", forward_batch.observed["capture_hidden_mode"])
    return runner.forward(forward_batch)


def main():
    batch = make_batch(return_hidden_states=True)
    return draft(batch, DraftRunner())
