# expect: same
"""A snapshot with an override handed to a helper that reads `seq_lens_cpu`."""
from sglang.srt.managers.schedule_batch import ModelWorkerBatch, ScheduleBatch
from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.srt.model_executor.forward_batch_info import CaptureHiddenMode, ForwardBatch, ForwardMode
from sglang.standin import make_batch, record


def helper(mwb):
    record("cpu", mwb.seq_lens_cpu)


def main():
    batch = make_batch()
    worker = TpModelWorker()
    mwb = batch.get_model_worker_batch(seq_lens_cpu_cache=[30, 40])
    helper(mwb)
    return worker.forward_batch_generation(mwb)
