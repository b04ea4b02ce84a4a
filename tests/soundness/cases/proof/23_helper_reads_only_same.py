# expect: same
"""A snapshot handed to a helper of the module that only reads fields the batch has alike."""
from sglang.srt.managers.schedule_batch import ModelWorkerBatch, ScheduleBatch
from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.srt.model_executor.forward_batch_info import CaptureHiddenMode, ForwardBatch, ForwardMode
from sglang.standin import make_batch, record


def helper(mwb):
    record("lens", mwb.seq_lens)


def main():
    batch = make_batch()
    worker = TpModelWorker()
    mwb = batch.get_model_worker_batch()
    helper(mwb)
    return worker.forward_batch_generation(mwb)
