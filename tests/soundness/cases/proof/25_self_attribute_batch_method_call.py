# expect: same
"""Batch read from `self`, changed by a method of another object that holds `self`."""
from sglang.srt.managers.schedule_batch import ModelWorkerBatch, ScheduleBatch
from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.srt.model_executor.forward_batch_info import CaptureHiddenMode, ForwardBatch, ForwardMode
from sglang.standin import make_batch, record


class Scheduler:
    def __init__(self):
        self.cur_batch = make_batch()
        self.worker = TpModelWorker()
        self.policy = Policy(self)

    def step(self):
        mwb = self.cur_batch.get_model_worker_batch()
        self.policy.advance()
        return self.worker.forward_batch_generation(mwb)


class Policy:
    def __init__(self, owner):
        self.owner = owner

    def advance(self):
        self.owner.cur_batch.prepare_for_decode()


def main():
    return Scheduler().step()
