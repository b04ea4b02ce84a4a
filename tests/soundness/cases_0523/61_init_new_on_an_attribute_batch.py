# expect: reported MWB189
"""`ForwardBatch.init_new(self.pending, ...)`: the batch is an expression the rewrite would read a
second time to pass the old object's capture mode, and from 0.5.17 a draft runner ignores the batch's
request for hidden states."""

from sglang.srt.model_executor.forward_batch_info import ForwardBatch
from sglang.srt.model_executor.model_runner import ModelRunner
from sglang.standin import make_batch, record


class DraftRunner(ModelRunner):
    is_draft_worker = True


class Drafter:
    def __init__(self, batch):
        self.pending = batch.get_model_worker_batch()

    def draft(self, runner):
        forward_batch = ForwardBatch.init_new(self.pending, runner)
        record("mode", forward_batch.observed["capture_hidden_mode"])
        return runner.forward(forward_batch)


def main():
    return Drafter(make_batch(return_hidden_states=True)).draft(DraftRunner())
