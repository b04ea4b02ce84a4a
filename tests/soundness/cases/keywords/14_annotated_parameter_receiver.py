# expect: same
"""A receiver known by its annotation (`worker: Worker`), and a module-level instance."""
from sglang.srt.managers.schedule_batch import ModelWorkerBatch, ScheduleBatch
from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.srt.model_executor.forward_batch_info import CaptureHiddenMode, ForwardBatch, ForwardMode
from sglang.standin import make_batch, record


class Worker:
    def run(self, model_worker_batch: ModelWorkerBatch):
        return TpModelWorker().forward_batch_generation(model_worker_batch)


class Counter:
    def run(self, model_worker_batch: int = 0):
        return model_worker_batch - 1


COUNTER = Counter()


def drive(worker: Worker, snapshot):
    record("counter", COUNTER.run(model_worker_batch=10))
    return worker.run(model_worker_batch=snapshot)


def main():
    batch = make_batch()
    return drive(Worker(), batch.get_model_worker_batch())
