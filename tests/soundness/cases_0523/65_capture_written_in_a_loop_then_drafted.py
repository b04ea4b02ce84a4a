# expect: same
"""Two target forwards with different capture modes in a loop, then a draft forward of the same snapshot.

A mode written on the kept snapshot before each forward of a loop, then the snapshot drafted: the
last write is the old object's field, which the draft `init_new` reads."""

from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.srt.model_executor.forward_batch_info import CaptureHiddenMode, ForwardBatch
from sglang.srt.model_executor.model_runner import ModelRunner
from sglang.standin import make_batch, record


class DraftRunner(ModelRunner):
    is_draft_worker = True


def step(target_worker, batch):
    mwb = batch.get_model_worker_batch()
    for mode in (CaptureHiddenMode.LAST, CaptureHiddenMode.FULL):
        mwb.capture_hidden_mode = mode
        target_worker.forward_batch_generation(mwb)
    fb = ForwardBatch.init_new(mwb, DraftRunner())
    record("draft", fb.observed["capture_hidden_mode"])
    return fb


def main():
    return step(TpModelWorker(), make_batch())
