# expect: same
"""A helper of unknown argument tests a tuple with the old class; only the old object and others reach it."""
from sglang.srt.managers.schedule_batch import ModelWorkerBatch, ScheduleBatch
from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.srt.model_executor.forward_batch_info import CaptureHiddenMode, ForwardBatch, ForwardMode
from sglang.standin import make_batch, record


def accepts(obj):
    return isinstance(obj, (int, ModelWorkerBatch))


def main():
    batch = make_batch()
    record("old", accepts(batch.get_model_worker_batch()))
    record("int", accepts(3))
    record("str", accepts("x"))
