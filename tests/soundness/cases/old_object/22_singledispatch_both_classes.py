# expect: reported MWB152
"""singledispatch registered on both classes by annotation: the old class's registration would become a second one on ScheduleBatch."""
import functools

from sglang.srt.managers.schedule_batch import ModelWorkerBatch, ScheduleBatch
from sglang.standin import make_batch, record


@functools.singledispatch
def describe(x):
    return "other"


@describe.register
def _(x: ModelWorkerBatch):
    return "old"


@describe.register
def _(x: ScheduleBatch):
    return "batch"


def main():
    batch = make_batch()
    mwb = batch.get_model_worker_batch()
    record("kind", describe(mwb))
    record("batch", describe(batch))
