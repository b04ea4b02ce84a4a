# expect: same unmarked
"""Adversary of the derived-mode assert: a speculative input that is falsy (an empty `dict`
subclass). The old method tested it by truth (NULL), 0.5.13's `init_new` tests `is not None`
(LAST): the tree facts see the container class, and the snapshot stays."""
from sglang.srt.managers.schedule_batch import ModelWorkerBatch, ScheduleBatch
from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.srt.model_executor.forward_batch_info import CaptureHiddenMode, ForwardBatch, ForwardMode
from sglang.standin import make_batch, record, run_batch


class EmptySpec(dict):
    capture_hidden_mode = CaptureHiddenMode.LAST


def draft(batch):
    model_worker_batch = batch.get_model_worker_batch()
    assert model_worker_batch.capture_hidden_mode == CaptureHiddenMode.NULL
    return ForwardBatch.init_new(model_worker_batch, None)


def main():
    return draft(make_batch(spec_info=EmptySpec()))
