# expect: reported MWB150
"""DFlash's shape: a Union parameter returns early for the old object; that caller now takes the other path."""
from sglang.srt.managers.schedule_batch import ModelWorkerBatch, ScheduleBatch
from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.srt.model_executor.forward_batch_info import CaptureHiddenMode, ForwardBatch, ForwardMode
from sglang.standin import make_batch, record

from typing import Union


def forward(batch: Union[ScheduleBatch, ModelWorkerBatch]):
    if isinstance(batch, ModelWorkerBatch):
        record("fallback")
        return TpModelWorker().forward_batch_generation(batch)
    record("speculative")
    model_worker_batch = batch.get_model_worker_batch()
    return TpModelWorker().forward_batch_generation(model_worker_batch)


def main():
    batch = make_batch()
    forward(batch.get_model_worker_batch())
    forward(batch)
