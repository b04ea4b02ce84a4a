# expect: same unmarked
"""`self.model_runner` handed to the forward-batch builder: a plain attribute, so the live batch is read."""
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


def main():
    batch = make_batch()
    record("forward", Runner(None).build(batch))
