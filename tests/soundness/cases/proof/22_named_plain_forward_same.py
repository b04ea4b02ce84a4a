# expect: same
"""A snapshot forwarded with only pure calls and unrelated work between."""
from sglang.srt.managers.schedule_batch import ModelWorkerBatch, ScheduleBatch
from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.srt.model_executor.forward_batch_info import CaptureHiddenMode, ForwardBatch, ForwardMode
from sglang.standin import make_batch, record


def main():
    batch = make_batch()
    worker = TpModelWorker()
    others = [make_batch()]
    mwb = batch.get_model_worker_batch()
    n = len(mwb.seq_lens)
    others[0].prepare_for_decode()
    record("n", n)
    return worker.forward_batch_generation(mwb)
