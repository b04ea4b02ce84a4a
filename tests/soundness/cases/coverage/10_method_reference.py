# expect: reported MWB151
"""A bound reference to `get_model_worker_batch` (no call on the spot): left, and said so."""
from sglang.srt.managers.schedule_batch import ModelWorkerBatch, ScheduleBatch
from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.srt.model_executor.forward_batch_info import CaptureHiddenMode, ForwardBatch, ForwardMode
from sglang.standin import make_batch, record


def main():
    batch = make_batch()
    snapshot_of = batch.get_model_worker_batch
    model_worker_batch = snapshot_of()
    return TpModelWorker().forward_batch_generation(model_worker_batch)
