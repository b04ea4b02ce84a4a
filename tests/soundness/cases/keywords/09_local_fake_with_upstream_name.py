# expect: same
"""A test double's `forward_batch_generation(model_worker_batch: int)` keeps its keyword: it is not SGLang's."""
from sglang.srt.managers.schedule_batch import ModelWorkerBatch, ScheduleBatch
from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.srt.model_executor.forward_batch_info import CaptureHiddenMode, ForwardBatch, ForwardMode
from sglang.standin import make_batch, record


class ReplayWorker:
    def forward_batch_generation(self, model_worker_batch: int = 0):
        record("replayed", model_worker_batch)
        return model_worker_batch


def main():
    worker = ReplayWorker()
    return worker.forward_batch_generation(model_worker_batch=3)
