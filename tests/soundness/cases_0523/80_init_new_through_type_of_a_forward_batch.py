# expect: reported MWB189
"""The next draft step builds its forward batch with the class of the previous one.

`type(fb).init_new(...)`: a call the rewrite does not see, which 0.5.23 requires keywords of."""

from sglang.srt.model_executor.forward_batch_info import ForwardBatch
from sglang.srt.model_executor.model_runner import ModelRunner
from sglang.standin import make_batch


def draft(batch, runner):
    mwb = batch.get_model_worker_batch()
    fb = ForwardBatch.init_new(mwb, runner)
    batch.prepare_for_decode()
    nxt = batch.get_model_worker_batch()
    fb2 = type(fb).init_new(nxt, runner)
    return runner.forward(fb), runner.forward(fb2)


def main():
    return draft(make_batch(), ModelRunner())
