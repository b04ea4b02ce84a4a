# expect: same
"""The batch is a parameter the caller also holds in `self`; a method of `self` decodes it."""
from sglang.srt.managers.schedule_batch import ModelWorkerBatch, ScheduleBatch
from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.srt.model_executor.forward_batch_info import CaptureHiddenMode, ForwardBatch, ForwardMode
from sglang.standin import make_batch, record


class Scheduler:
    def __init__(self):
        self.cur_batch = make_batch()
        self.worker = TpModelWorker()

    def advance(self):
        self.cur_batch.prepare_for_decode()

    def run_batch(self, batch):
        mwb = batch.get_model_worker_batch()
        self.advance()
        return self.worker.forward_batch_generation(mwb)


def main():
    s = Scheduler()
    return s.run_batch(s.cur_batch)
