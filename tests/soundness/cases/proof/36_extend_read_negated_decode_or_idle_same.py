# expect: same unmarked
"""Rule 6: `not <old>.forward_mode.is_decode_or_idle()` is the old object's own test for the lengths."""
from sglang.srt.managers.schedule_batch import ModelWorkerBatch, ScheduleBatch
from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.srt.model_executor.forward_batch_info import CaptureHiddenMode, ForwardBatch, ForwardMode
from sglang.standin import make_batch, record


def main():
    for mode in (ForwardMode.EXTEND, ForwardMode.DECODE, ForwardMode.IDLE):
        batch = make_batch(forward_mode=mode)
        model_worker_batch = batch.get_model_worker_batch()
        if not model_worker_batch.forward_mode.is_decode_or_idle() and len(batch.reqs) > 0:
            record("prefix", model_worker_batch.extend_prefix_lens)
