# expect: same
"""ForwardBatch.init_new called on the snapshot directly."""
from sglang.srt.managers.schedule_batch import ModelWorkerBatch, ScheduleBatch
from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.srt.model_executor.forward_batch_info import CaptureHiddenMode, ForwardBatch, ForwardMode
from sglang.standin import make_batch, record


def main():
    batch = make_batch()
    model_worker_batch = batch.get_model_worker_batch(seq_lens_cpu_cache=[7, 8])
    forward_batch = ForwardBatch.init_new(model_worker_batch, None)
    record("cpu", forward_batch.seq_lens_cpu)
