# expect: same
"""`obj.run(model_worker_batch=...)` on a receiver nothing resolves, that is an unrelated class."""
from sglang.srt.managers.schedule_batch import ModelWorkerBatch, ScheduleBatch
from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.srt.model_executor.forward_batch_info import CaptureHiddenMode, ForwardBatch, ForwardMode
from sglang.standin import make_batch, record


class Worker:
    def run(self, model_worker_batch: ModelWorkerBatch):
        return TpModelWorker().forward_batch_generation(model_worker_batch)


class Counter:
    def run(self, model_worker_batch: int = 0):
        return model_worker_batch * 2


def drive(obj, value):
    return obj.run(model_worker_batch=value)


def main():
    batch = make_batch()
    record("worker", Worker().run(batch.get_model_worker_batch()))
    return drive(Counter(), 21)
