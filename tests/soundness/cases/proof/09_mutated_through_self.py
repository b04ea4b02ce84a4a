# expect: same
"""The scheduler's shape: a method changes the running batch through `self`."""
from sglang.srt.managers.schedule_batch import ModelWorkerBatch, ScheduleBatch
from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.srt.model_executor.forward_batch_info import CaptureHiddenMode, ForwardBatch, ForwardMode
from sglang.standin import make_batch, record


class Scheduler:
    def __init__(self):
        self.running_batch = make_batch()
        self.worker = TpModelWorker()

    def update_running_batch(self):
        self.running_batch.prepare_for_decode()

    def step(self):
        batch = self.running_batch
        mwb = batch.get_model_worker_batch()
        self.update_running_batch()
        return self.worker.forward_batch_generation(mwb)


def main():
    return Scheduler().step()
