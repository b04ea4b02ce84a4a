# expect: same
"""Rule 6, adversary: the gate tests another batch's mode, so the read may run in decode."""
from sglang.srt.managers.schedule_batch import ModelWorkerBatch, ScheduleBatch
from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.srt.model_executor.forward_batch_info import CaptureHiddenMode, ForwardBatch, ForwardMode
from sglang.standin import make_batch, record


def main():
    other = make_batch(forward_mode=ForwardMode.EXTEND)
    batch = make_batch(forward_mode=ForwardMode.DECODE)
    model_worker_batch = batch.get_model_worker_batch()
    if other.forward_mode.is_extend():
        record("lens", model_worker_batch.extend_seq_lens)
