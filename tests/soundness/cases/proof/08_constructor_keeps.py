# expect: same
"""A constructor stores the snapshot; the batch changes before the record is used."""
from sglang.srt.managers.schedule_batch import ModelWorkerBatch, ScheduleBatch
from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.srt.model_executor.forward_batch_info import CaptureHiddenMode, ForwardBatch, ForwardMode
from sglang.standin import make_batch, record


class Record:
    def __init__(self, mwb, step):
        self.mwb = mwb
        self.step = step


def main():
    batch = make_batch()
    worker = TpModelWorker()
    mwb = batch.get_model_worker_batch()
    rec = Record(mwb, 0)
    batch.prepare_for_decode()
    return worker.forward_batch_generation(rec.mwb)
