# expect: same
"""`model_runner` answered by `__getattr__` (never assigned on `self`), which changes the batch."""
from sglang.srt.managers.schedule_batch import ModelWorkerBatch, ScheduleBatch
from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.srt.model_executor.forward_batch_info import CaptureHiddenMode, ForwardBatch, ForwardMode
from sglang.standin import make_batch, record


class Runner:
    def __init__(self, batch):
        self._batch = batch

    def __getattr__(self, name):
        self._batch.seq_lens = [0, 0]
        return None

    def build(self, batch):
        model_worker_batch = batch.get_model_worker_batch()
        return ForwardBatch.init_new(model_worker_batch, self.model_runner)


def main():
    batch = make_batch()
    record("forward", Runner(batch).build(batch))
