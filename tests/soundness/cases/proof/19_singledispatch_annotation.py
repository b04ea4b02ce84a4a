# expect: same
"""singledispatch registered by annotation on the old class."""
from sglang.srt.managers.schedule_batch import ModelWorkerBatch, ScheduleBatch
from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.srt.model_executor.forward_batch_info import CaptureHiddenMode, ForwardBatch, ForwardMode
from sglang.standin import make_batch, record

import functools


@functools.singledispatch
def describe(x):
    return "other"


@describe.register
def _(x: ModelWorkerBatch):
    return "old"


def main():
    batch = make_batch()
    mwb = batch.get_model_worker_batch()
    record("kind", describe(mwb))
