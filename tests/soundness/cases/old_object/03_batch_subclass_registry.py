# expect: same
"""A registry fed by `__init_subclass__` of the batch's class: taking a snapshot makes no subclass."""
from sglang.srt.managers.schedule_batch import ModelWorkerBatch, ScheduleBatch
from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.srt.model_executor.forward_batch_info import CaptureHiddenMode, ForwardBatch, ForwardMode
from sglang.standin import make_batch, record

REGISTERED = []


def main():
    batch = make_batch()
    batch_class = type(batch)

    def register(cls, **kwargs):
        if cls.__name__ in REGISTERED:
            raise ValueError(f"backend {cls.__name__} registered twice")
        REGISTERED.append(cls.__name__)

    batch_class.__init_subclass__ = classmethod(register)
    worker = TpModelWorker()
    model_worker_batch = batch.get_model_worker_batch()
    batch.prepare_for_decode()
    record("registered", list(REGISTERED))
    return worker.forward_batch_generation(model_worker_batch)
