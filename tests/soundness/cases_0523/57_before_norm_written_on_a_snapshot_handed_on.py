# expect: reported MWB138
"""A snapshot kept in code, an override written on it, then handed to a helper that builds the
forward batch: the old `init_new` read the field from the old object. From 0.5.16 it is a keyword,
which the helper's call cannot take from what it is handed."""

from sglang.srt.managers.schedule_batch import ModelWorkerBatch
from sglang.srt.model_executor.forward_batch_info import ForwardBatch
from sglang.srt.model_executor.model_runner import ModelRunner
from sglang.standin import make_batch


def draft(model_worker_batch: ModelWorkerBatch, runner):
    forward_batch = ForwardBatch.init_new(model_worker_batch, runner)
    return runner.forward(forward_batch)


def main():
    batch = make_batch()
    mwb = batch.get_model_worker_batch()
    mwb.return_hidden_states_before_norm = True
    return draft(mwb, ModelRunner())
