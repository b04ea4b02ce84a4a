# expect: same
"""`super().run`, `Base.run(self, ...)`, `cls().run` and `self.run` by keyword, all renamed alike."""
from sglang.srt.managers.schedule_batch import ModelWorkerBatch, ScheduleBatch
from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.srt.model_executor.forward_batch_info import CaptureHiddenMode, ForwardBatch, ForwardMode
from sglang.standin import make_batch, record


class Base:
    def run(self, model_worker_batch: ModelWorkerBatch):
        record("base", model_worker_batch.seq_lens)
        return TpModelWorker().forward_batch_generation(model_worker_batch)

    @classmethod
    def build_and_run(cls, model_worker_batch: ModelWorkerBatch):
        return cls().run(model_worker_batch=model_worker_batch)


class Child(Base):
    def run(self, model_worker_batch: ModelWorkerBatch):
        first = super().run(model_worker_batch=model_worker_batch)
        return first, Base.run(self, model_worker_batch=model_worker_batch)

    def again(self, model_worker_batch: ModelWorkerBatch):
        return self.run(model_worker_batch=model_worker_batch)


def main():
    batch = make_batch()
    record("again", Child().again(batch.get_model_worker_batch()))
    return Child.build_and_run(batch.get_model_worker_batch())
