# expect: same
"""SGLang's own renamed API by keyword: on an attribute, on `self` of a TpModelWorker subclass, on the class."""
from sglang.srt.managers.schedule_batch import ModelWorkerBatch, ScheduleBatch
from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.srt.model_executor.forward_batch_info import CaptureHiddenMode, ForwardBatch, ForwardMode
from sglang.standin import make_batch, record


class DraftWorker(TpModelWorker):
    def __init__(self):
        super().__init__()
        self.target_worker = TpModelWorker()

    def forward_twice(self, model_worker_batch: ModelWorkerBatch):
        first = self.forward_batch_generation(model_worker_batch=model_worker_batch, skip_sample=True)
        second = self.target_worker.forward_batch_generation(model_worker_batch=model_worker_batch)
        third = TpModelWorker.forward_batch_generation(self.target_worker, model_worker_batch=model_worker_batch)
        return first, second, third


def main():
    batch = make_batch()
    return DraftWorker().forward_twice(batch.get_model_worker_batch())
