# expect: same
"""A write of return_hidden_states_before_norm on the built ForwardBatch: 0.5.23 keeps that field on
ForwardBatch, so the write stays where it is."""

from sglang.srt.managers.schedule_batch import ModelWorkerBatch
from sglang.srt.model_executor.forward_batch_info import ForwardBatch
from sglang.srt.model_executor.model_runner import ModelRunner
from sglang.standin import make_batch, record


def pre_norm(model_worker_batch: ModelWorkerBatch, runner):
    forward_batch = ForwardBatch.init_new(model_worker_batch, runner)
    forward_batch.return_hidden_states_before_norm = True
    record("before_norm", forward_batch.return_hidden_states_before_norm)
    return forward_batch


def main():
    return pre_norm(make_batch().get_model_worker_batch(), ModelRunner())
