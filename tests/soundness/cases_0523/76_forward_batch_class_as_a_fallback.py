# expect: reported MWB189
"""A pluggable forward-batch class with ForwardBatch as the fallback.

`fb_cls or ForwardBatch`: the class taken as a value."""

from sglang.srt.model_executor.forward_batch_info import ForwardBatch
from sglang.srt.model_executor.model_runner import ModelRunner
from sglang.standin import make_batch


class Drafter:
    def __init__(self, fb_cls=None):
        self.fb_cls = fb_cls or ForwardBatch
        self.runner = ModelRunner()

    def draft(self, batch):
        fb = self.fb_cls.init_new(batch.get_model_worker_batch(), self.runner)
        return self.runner.forward(fb)


def main():
    return Drafter().draft(make_batch())
