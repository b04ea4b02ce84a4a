# expect: same
"""A class pattern on the old class."""
from sglang.srt.managers.schedule_batch import ModelWorkerBatch, ScheduleBatch
from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.srt.model_executor.forward_batch_info import CaptureHiddenMode, ForwardBatch, ForwardMode
from sglang.standin import make_batch, record


def main():
    batch = make_batch()
    mwb = batch.get_model_worker_batch()
    match mwb:
        case ModelWorkerBatch():
            record("kind", "old")
        case _:
            record("kind", "other")
