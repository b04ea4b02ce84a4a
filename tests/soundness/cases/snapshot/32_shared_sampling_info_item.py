# expect: same
"""An item of the shared sampling_info changes in place: the snapshot held the same object."""
from sglang.srt.managers.schedule_batch import ModelWorkerBatch, ScheduleBatch
from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.srt.model_executor.forward_batch_info import CaptureHiddenMode, ForwardBatch, ForwardMode
from sglang.standin import make_batch, record


def main():
    batch = make_batch()
    worker = TpModelWorker()
    model_worker_batch = batch.get_model_worker_batch()
    batch.sampling_info["temperature"] = 0.5
    worker.forward_batch_generation(model_worker_batch)
    record("sampling", model_worker_batch.sampling_info)
