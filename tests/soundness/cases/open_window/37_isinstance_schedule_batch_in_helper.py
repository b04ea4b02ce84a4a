# expect: reported
"""`isinstance(x, ScheduleBatch)` in a helper that never names the old class: the snapshot was not one."""
from sglang.srt.managers.schedule_batch import ScheduleBatch
from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.standin import make_batch, record


def describe(value):
    if isinstance(value, ScheduleBatch):
        return "scheduler batch"
    return "worker input"


def main():
    batch = make_batch()
    worker = TpModelWorker()
    mwb = batch.get_model_worker_batch()
    record("kind", describe(mwb))
    return worker.forward_batch_generation(mwb)
