# expect: same
"""Rule 6, adversary: the read sits in the `else` of the extend test, that is in decode."""
from sglang.srt.managers.schedule_batch import ModelWorkerBatch, ScheduleBatch
from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.srt.model_executor.forward_batch_info import CaptureHiddenMode, ForwardBatch, ForwardMode
from sglang.standin import make_batch, record


def main():
    batch = make_batch(forward_mode=ForwardMode.DECODE)
    model_worker_batch = batch.get_model_worker_batch()
    if model_worker_batch.forward_mode.is_extend():
        record("extend")
    else:
        record("lens", model_worker_batch.extend_seq_lens)
