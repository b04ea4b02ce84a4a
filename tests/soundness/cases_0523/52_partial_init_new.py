# expect: reported
"""`functools.partial(ForwardBatch.init_new, ...)`: a call the rewrite does not see as a call, which
0.5.23 requires to pass `return_hidden_states_before_norm`."""

import functools

from sglang.srt.managers.schedule_batch import ModelWorkerBatch
from sglang.srt.model_executor.forward_batch_info import ForwardBatch
from sglang.srt.model_executor.model_runner import ModelRunner
from sglang.standin import make_batch


def draft(model_worker_batch: ModelWorkerBatch, runner):
    build = functools.partial(ForwardBatch.init_new, model_runner=runner)
    forward_batch = build(model_worker_batch)
    return runner.forward(forward_batch)


def main():
    batch = make_batch()
    return draft(batch.get_model_worker_batch(), ModelRunner())
