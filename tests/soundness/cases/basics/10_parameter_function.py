# expect: same
"""A helper taking the old object by its usual name, fed an inline snapshot."""
from sglang.srt.managers.schedule_batch import ModelWorkerBatch, ScheduleBatch
from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.srt.model_executor.forward_batch_info import CaptureHiddenMode, ForwardBatch, ForwardMode
from sglang.standin import make_batch, record


def _run(worker, model_worker_batch):
    record("mode", model_worker_batch.forward_mode)
    return worker.forward_batch_generation(model_worker_batch)


def main():
    batch = make_batch()
    return _run(TpModelWorker(), batch.get_model_worker_batch())
