# expect: same
"""A before-norm override right before init_new becomes its keyword."""

from sglang.srt.managers.schedule_batch import ModelWorkerBatch
from sglang.srt.model_executor.forward_batch_info import ForwardBatch
from sglang.srt.model_executor.model_runner import ModelRunner
from sglang.standin import make_batch


def pre_norm(model_worker_batch: ModelWorkerBatch, runner):
    model_worker_batch.return_hidden_states_before_norm = True
    forward_batch = ForwardBatch.init_new(model_worker_batch, runner)
    return forward_batch


def main():
    return pre_norm(make_batch().get_model_worker_batch(), ModelRunner())
