# expect: same
"""A snapshot bound by `:=`, then the batch is decoded."""
from sglang.srt.managers.schedule_batch import ModelWorkerBatch, ScheduleBatch
from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.srt.model_executor.forward_batch_info import CaptureHiddenMode, ForwardBatch, ForwardMode
from sglang.standin import make_batch, record


def main():
    batch = make_batch()
    worker = TpModelWorker()
    if (mwb := batch.get_model_worker_batch()) is not None:
        batch.prepare_for_decode()
        return worker.forward_batch_generation(mwb)
