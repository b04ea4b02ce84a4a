# expect: same
"""A marker quoting a multi-line expression is one line: the file is migrated, not refused."""
from sglang.srt.managers.schedule_batch import ModelWorkerBatch, ScheduleBatch
from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.srt.model_executor.forward_batch_info import CaptureHiddenMode, ForwardBatch, ForwardMode
from sglang.standin import make_batch, record


class Holder:
    def __init__(self):
        self.slots = [None]


def main():
    batch = make_batch()
    holder = Holder()
    holder.slots[
        0
    ] = batch.get_model_worker_batch()
    record("extend", holder.slots[0].extend_seq_lens)
    return TpModelWorker().forward_batch_generation(holder.slots[0])
