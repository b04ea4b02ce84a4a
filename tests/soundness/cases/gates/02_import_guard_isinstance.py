# expect: same
"""An ImportError-guarded import and its `is not None and isinstance` use stay as they are."""
from sglang.srt.managers.schedule_batch import ScheduleBatch
from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.standin import make_batch, record

try:
    from sglang.srt.managers.schedule_batch import ModelWorkerBatch
except ImportError:
    ModelWorkerBatch = None


def to_worker_batch(batch: ScheduleBatch):
    return batch.get_model_worker_batch() if ModelWorkerBatch is not None else batch


def main():
    batch = make_batch()
    worker_batch = to_worker_batch(batch)
    record("is_scheduled", isinstance(worker_batch, ScheduleBatch) == (ModelWorkerBatch is None))
    return TpModelWorker().forward_batch_generation(worker_batch)
