# expect: reported MWB150
"""`if not isinstance(x, ModelWorkerBatch)` on a Union parameter: the old object now takes the body."""
from sglang.srt.managers.schedule_batch import ModelWorkerBatch, ScheduleBatch
from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.srt.model_executor.forward_batch_info import CaptureHiddenMode, ForwardBatch, ForwardMode
from sglang.standin import make_batch, record

from typing import Union


def prepare(item: Union[ScheduleBatch, ModelWorkerBatch]):
    if not isinstance(item, ModelWorkerBatch):
        record("prepared")
    else:
        record("already a snapshot")


def main():
    batch = make_batch()
    prepare(batch.get_model_worker_batch())
    prepare(batch)
