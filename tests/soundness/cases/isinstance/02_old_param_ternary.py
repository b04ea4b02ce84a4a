# expect: same
"""A ternary on a `model_worker_batch` parameter."""
from sglang.srt.managers.schedule_batch import ModelWorkerBatch, ScheduleBatch
from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.srt.model_executor.forward_batch_info import CaptureHiddenMode, ForwardBatch, ForwardMode
from sglang.standin import make_batch, record


def label(model_worker_batch):
    return "batch" if isinstance(model_worker_batch, ModelWorkerBatch) else "other"


def main():
    batch = make_batch()
    record("label", label(batch.get_model_worker_batch()))
    record("none", label(None))
