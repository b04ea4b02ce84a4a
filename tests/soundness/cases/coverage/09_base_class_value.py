# expect: reported MWB152
"""The class as a base class: the subclass would derive from ScheduleBatch."""
from sglang.srt.managers.schedule_batch import ModelWorkerBatch, ScheduleBatch
from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.srt.model_executor.forward_batch_info import CaptureHiddenMode, ForwardBatch, ForwardMode
from sglang.standin import make_batch, record


class TracedSnapshot(ModelWorkerBatch):
    pass


def main():
    record("bases", [klass.__name__ for klass in TracedSnapshot.__mro__])
    batch = make_batch()
    return TpModelWorker().forward_batch_generation(batch.get_model_worker_batch())
