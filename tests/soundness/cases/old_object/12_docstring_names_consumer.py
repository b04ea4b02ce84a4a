# expect: same unmarked
"""A docstring that says the code calls ForwardBatch.init_new patches nothing: the live batch is read."""
from sglang.srt.managers.schedule_batch import ModelWorkerBatch, ScheduleBatch
from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.srt.model_executor.forward_batch_info import CaptureHiddenMode, ForwardBatch, ForwardMode
from sglang.standin import make_batch, record


def build(batch):
    """Builds the forward batch with ForwardBatch.init_new, as the worker does."""
    model_worker_batch = batch.get_model_worker_batch()
    return ForwardBatch.init_new(model_worker_batch, None)


def main():
    batch = make_batch()
    record("forward", build(batch))
