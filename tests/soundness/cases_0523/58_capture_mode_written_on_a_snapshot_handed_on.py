# expect: same MWB138
"""A capture mode written on a kept snapshot that is then handed on: a forward past this function
(a worker's, a helper's) may derive its own where the old one read the snapshot's field. Here the
helper's call passes the snapshot's own (`worker_batch_capture_mode`), so the program is the same;
the marker stays, for the forwards it cannot see."""

from sglang.srt.managers.schedule_batch import ModelWorkerBatch
from sglang.srt.model_executor.forward_batch_info import CaptureHiddenMode, ForwardBatch
from sglang.srt.model_executor.model_runner import ModelRunner
from sglang.standin import make_batch


def draft(model_worker_batch: ModelWorkerBatch, runner):
    forward_batch = ForwardBatch.init_new(model_worker_batch, runner)
    return runner.forward(forward_batch)


def main():
    batch = make_batch()
    mwb = batch.get_model_worker_batch()
    mwb.capture_hidden_mode = CaptureHiddenMode.FULL
    return draft(mwb, ModelRunner())
