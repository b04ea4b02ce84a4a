# expect: same unmarked
"""Adversary of the window allowlist (the consumer alone): a falsy speculative input, an empty
`dict` subclass. The old method derived NULL by truth, 0.5.13's `init_new` on the live batch would
derive LAST by `is not None`: the snapshot stays."""
from sglang.srt.managers.schedule_batch import ModelWorkerBatch, ScheduleBatch
from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.srt.model_executor.forward_batch_info import CaptureHiddenMode, ForwardBatch, ForwardMode
from sglang.standin import make_batch, record, run_batch


class EmptySpec(dict):
    capture_hidden_mode = CaptureHiddenMode.LAST


def draft(batch):
    model_worker_batch = batch.get_model_worker_batch()
    return ForwardBatch.init_new(model_worker_batch, None)


def main():
    return draft(make_batch(spec_info=EmptySpec()))
