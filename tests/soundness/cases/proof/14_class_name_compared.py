# expect: same MWB133
"""A class test by name instead of isinstance."""
from sglang.srt.managers.schedule_batch import ModelWorkerBatch, ScheduleBatch
from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.srt.model_executor.forward_batch_info import CaptureHiddenMode, ForwardBatch, ForwardMode
from sglang.standin import make_batch, record


def main():
    batch = make_batch()
    mwb = batch.get_model_worker_batch()
    record("kind", type(mwb).__name__ == "ModelWorkerBatch")
