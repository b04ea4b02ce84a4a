# expect: same
"""A trajectory logger exports the worker batch with `dataclasses.asdict`: the old object's fields."""
import dataclasses

from sglang.srt.managers.schedule_batch import ModelWorkerBatch, ScheduleBatch
from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.srt.model_executor.forward_batch_info import CaptureHiddenMode, ForwardBatch, ForwardMode
from sglang.standin import make_batch, record


def main():
    batch = make_batch()
    worker = TpModelWorker()
    model_worker_batch = batch.get_model_worker_batch()
    batch.filter_batch([0])
    exported = dataclasses.asdict(model_worker_batch)
    record("keys", sorted(exported))
    record("fields", [f.name for f in dataclasses.fields(model_worker_batch)])
    record("vars", sorted(vars(model_worker_batch)))
    return worker.forward_batch_generation(model_worker_batch)
