# expect: same
"""A scheduler mixin of the fork that picks its path with is_spec_v2 before running the worker."""

from sglang.srt.managers.schedule_batch import ScheduleBatch
from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.srt.speculative.eagle_worker_v2 import EAGLEWorkerV2
from sglang.standin import make_batch, record, schedule


class MyMixin:
    def run_batch(self, batch: ScheduleBatch):
        record("path", "v2" if batch.is_spec_v2 else "v1")
        return schedule(self.worker, batch)


def main():
    mixin = MyMixin()
    mixin.worker = EAGLEWorkerV2(target_worker=TpModelWorker())
    return mixin.run_batch(make_batch(algorithm="EAGLE"))
