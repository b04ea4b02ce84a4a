# expect: same
"""A helper that builds the forward batch itself: 0.5.23 requires return_hidden_states_before_norm."""

from sglang.srt.managers.schedule_batch import ModelWorkerBatch
from sglang.srt.model_executor.forward_batch_info import CaptureHiddenMode, ForwardBatch
from sglang.srt.model_executor.model_runner import ModelRunner
from sglang.standin import make_batch


def draft(model_worker_batch: ModelWorkerBatch, runner):
    model_worker_batch.capture_hidden_mode = CaptureHiddenMode.LAST
    forward_batch = ForwardBatch.init_new(model_worker_batch, runner)
    return runner.forward(forward_batch)


def main():
    batch = make_batch()
    return draft(batch.get_model_worker_batch(), ModelRunner())
