# expect: reported MWB189
"""The forward-batch class is a class attribute of the drafter (so a test can swap it).

`ForwardBatch` kept as a class attribute and `init_new` called through it: not a call the rewrite
sees, and 0.5.23 requires `return_hidden_states_before_norm` there."""

from sglang.srt.model_executor.forward_batch_info import ForwardBatch
from sglang.srt.model_executor.model_runner import ModelRunner
from sglang.standin import make_batch, record


class DraftRunner(ModelRunner):
    is_draft_worker = True


class Drafter:
    forward_batch_cls = ForwardBatch

    def draft(self, batch, runner):
        fb = self.forward_batch_cls.init_new(batch.get_model_worker_batch(), runner)
        record("mode", fb.observed["capture_hidden_mode"])
        return fb


def main():
    return Drafter().draft(make_batch(return_hidden_states=True), DraftRunner())
