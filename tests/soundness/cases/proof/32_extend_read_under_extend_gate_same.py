# expect: same unmarked
"""Rule 6: an extend length read inside `if <old>.forward_mode.is_extend():` is the same on the batch."""
from sglang.srt.managers.schedule_batch import ModelWorkerBatch, ScheduleBatch
from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.srt.model_executor.forward_batch_info import CaptureHiddenMode, ForwardBatch, ForwardMode
from sglang.standin import make_batch, record


def main():
    for mode in (ForwardMode.EXTEND, ForwardMode.DECODE):
        batch = make_batch(forward_mode=mode)
        model_worker_batch = batch.get_model_worker_batch()
        forward_mode = model_worker_batch.forward_mode
        if forward_mode.is_extend():
            record("lens", model_worker_batch.extend_seq_lens)
        else:
            record("decode")
