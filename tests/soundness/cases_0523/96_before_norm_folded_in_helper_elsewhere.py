# expect: reported MWB138
"""A helper in plugin/probe.py asks for pre-norm hidden states on its parameter and builds a forward
batch from it (the write folds into init_new's keyword). The caller keeps the snapshot and builds a
second forward batch from it: the old object kept return_hidden_states_before_norm=True."""

from sglang.srt.model_executor.forward_batch_info import ForwardBatch
from sglang.srt.model_executor.model_runner import ModelRunner
from sglang.standin import make_batch, record

from .probe import probe_pre_norm


def main():
    runner = ModelRunner()
    mwb = make_batch().get_model_worker_batch()
    probe_pre_norm(mwb, runner)
    again = ForwardBatch.init_new(mwb, runner)
    record("again_before_norm", again.return_hidden_states_before_norm)
    return runner.forward(again)


# --- module: plugin/probe.py ---
from sglang.srt.managers.schedule_batch import ModelWorkerBatch
from sglang.srt.model_executor.forward_batch_info import ForwardBatch


def probe_pre_norm(model_worker_batch: ModelWorkerBatch, runner):
    model_worker_batch.return_hidden_states_before_norm = True
    forward_batch = ForwardBatch.init_new(model_worker_batch, runner)
    return runner.forward(forward_batch)
