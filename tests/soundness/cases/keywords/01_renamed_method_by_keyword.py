# expect: same
"""A method whose old-object parameter is renamed, called by keyword on a local instance."""
from sglang.srt.managers.schedule_batch import ModelWorkerBatch, ScheduleBatch
from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.srt.model_executor.forward_batch_info import CaptureHiddenMode, ForwardBatch, ForwardMode
from sglang.standin import make_batch, record


class Worker:
    def __init__(self):
        self.tp_worker = TpModelWorker()

    def run(self, model_worker_batch: ModelWorkerBatch, step: int = 0):
        record("step", step)
        return self.tp_worker.forward_batch_generation(model_worker_batch)


def main():
    batch = make_batch()
    worker = Worker()
    model_worker_batch = batch.get_model_worker_batch()
    return worker.run(model_worker_batch=model_worker_batch, step=1)
