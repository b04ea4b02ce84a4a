# expect: same
"""`if not isinstance(...)` on a parameter annotated with the old class returns early for None only."""
from sglang.srt.managers.schedule_batch import ModelWorkerBatch, ScheduleBatch
from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.srt.model_executor.forward_batch_info import CaptureHiddenMode, ForwardBatch, ForwardMode
from sglang.standin import make_batch, record


def forward(model_worker_batch: ModelWorkerBatch):
    if not isinstance(model_worker_batch, ModelWorkerBatch):
        record("nothing to run")
        return None
    return TpModelWorker().forward_batch_generation(model_worker_batch)


def main():
    batch = make_batch()
    record("ran", forward(batch.get_model_worker_batch()))
    record("none", forward(None))
