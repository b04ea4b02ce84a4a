# expect: same
"""A parameter typed ScheduleBatch was never the old object: its tests were always false."""
from sglang.srt.managers.schedule_batch import ModelWorkerBatch, ScheduleBatch
from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.srt.model_executor.forward_batch_info import CaptureHiddenMode, ForwardBatch, ForwardMode
from sglang.standin import make_batch, record


def step(batch: ScheduleBatch):
    if isinstance(batch, ModelWorkerBatch):
        return "impossible"
    legacy = isinstance(batch, ModelWorkerBatch) or len(batch.seq_lens)
    return legacy


def main():
    record("step", step(make_batch()))
