# expect: same
"""Another class's `run(model_worker_batch: int)` keeps its keyword when some other `run` is renamed."""
from sglang.srt.managers.schedule_batch import ModelWorkerBatch, ScheduleBatch
from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.srt.model_executor.forward_batch_info import CaptureHiddenMode, ForwardBatch, ForwardMode
from sglang.standin import make_batch, record


class Worker:
    def run(self, model_worker_batch: ModelWorkerBatch):
        return TpModelWorker().forward_batch_generation(model_worker_batch)


class Counter:
    def run(self, model_worker_batch: int = 0):
        record("counted", model_worker_batch)
        return model_worker_batch + 1


def main():
    batch = make_batch()
    counter = Counter()
    record("worker", Worker().run(batch.get_model_worker_batch()))
    return counter.run(model_worker_batch=41)
