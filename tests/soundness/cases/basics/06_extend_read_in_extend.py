# expect: same
"""extend_seq_lens read on an extend batch: renamed to extend_lens, same value."""
from sglang.srt.managers.schedule_batch import ModelWorkerBatch, ScheduleBatch
from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.srt.model_executor.forward_batch_info import CaptureHiddenMode, ForwardBatch, ForwardMode
from sglang.standin import make_batch, record


def main():
    batch = make_batch()
    model_worker_batch = batch.get_model_worker_batch()
    record("extend", model_worker_batch.extend_seq_lens)
    record("prefix", model_worker_batch.extend_prefix_lens)
