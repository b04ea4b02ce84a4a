# expect: same
"""`self.run(model_worker_batch=...)` where a subclass overrides `run` with a parameter of another type."""
from sglang.srt.managers.schedule_batch import ModelWorkerBatch, ScheduleBatch
from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.srt.model_executor.forward_batch_info import CaptureHiddenMode, ForwardBatch, ForwardMode
from sglang.standin import make_batch, record


class Runner:
    def run(self, model_worker_batch: ModelWorkerBatch):
        return TpModelWorker().forward_batch_generation(model_worker_batch)

    def step(self, value):
        return self.run(model_worker_batch=value)


class CountingRunner(Runner):
    def run(self, model_worker_batch: int = 0):
        record("counted", model_worker_batch)
        return model_worker_batch


def main():
    batch = make_batch()
    record("direct", Runner().run(batch.get_model_worker_batch()))
    return CountingRunner().step(7)
