# expect: same unmarked
"""The forward batch rebinds a local that held None: no finalizer runs, so the live batch is read."""
from sglang.srt.managers.schedule_batch import ModelWorkerBatch, ScheduleBatch
from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.srt.model_executor.forward_batch_info import CaptureHiddenMode, ForwardBatch, ForwardMode
from sglang.standin import make_batch, record


def build(batch, runner):
    forward_batch = None
    model_worker_batch = batch.get_model_worker_batch()
    forward_batch = ForwardBatch.init_new(model_worker_batch, runner)
    return forward_batch


def main():
    batch = make_batch()
    record("forward", build(batch, None))
