# expect: same
"""A property returns an inline snapshot; the batch changes before it is forwarded."""
from sglang.srt.managers.schedule_batch import ModelWorkerBatch, ScheduleBatch
from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.srt.model_executor.forward_batch_info import CaptureHiddenMode, ForwardBatch, ForwardMode
from sglang.standin import make_batch, record


class Holder:
    def __init__(self, batch):
        self.batch = batch

    @property
    def worker_batch(self):
        return self.batch.get_model_worker_batch()


def main():
    holder = Holder(make_batch())
    worker = TpModelWorker()
    mwb = holder.worker_batch
    holder.batch.prepare_for_decode()
    return worker.forward_batch_generation(mwb)
