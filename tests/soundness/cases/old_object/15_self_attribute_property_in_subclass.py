# expect: same
"""A subclass makes `model_runner` a property that changes the batch: the snapshot is kept."""
from sglang.srt.managers.schedule_batch import ModelWorkerBatch, ScheduleBatch
from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.srt.model_executor.forward_batch_info import CaptureHiddenMode, ForwardBatch, ForwardMode
from sglang.standin import make_batch, record


class Runner:
    def __init__(self, model_runner):
        self.model_runner = model_runner

    def build(self, batch):
        model_worker_batch = batch.get_model_worker_batch()
        return ForwardBatch.init_new(model_worker_batch, self.model_runner)


class Tracing(Runner):
    batch = None

    @property
    def model_runner(self):
        Tracing.batch.seq_lens = [n * 2 for n in Tracing.batch.seq_lens]
        return None

    @model_runner.setter
    def model_runner(self, value):
        pass


def main():
    batch = make_batch()
    Tracing.batch = batch
    record("forward", Tracing(None).build(batch))
