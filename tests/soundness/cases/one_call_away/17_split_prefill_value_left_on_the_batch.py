# expect: reported MWB107
"""The split-prefill shape: the first call leaves the CPU lengths on the batch for the next call to
read back as the old method's override. From 0.5.13 that field is a one-shot override, which the
next `init_new` of the batch consumes and resets: reported on the write that leaves it."""
from sglang.srt.managers.schedule_batch import ModelWorkerBatch, ScheduleBatch
from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.srt.model_executor.forward_batch_info import CaptureHiddenMode, ForwardBatch, ForwardMode
from sglang.standin import make_batch, record, run_batch


def split_step(batch, first):
    if first:
        model_worker_batch = batch.get_model_worker_batch()
        batch.split_forward_batch = ForwardBatch.init_new(model_worker_batch, None)
        batch.seq_lens_cpu_cache = model_worker_batch.seq_lens_cpu
    else:
        model_worker_batch = batch.get_model_worker_batch(batch.seq_lens_cpu_cache)
    return model_worker_batch.seq_lens_cpu


def main():
    batch = make_batch()
    first = split_step(batch, True)
    batch.seq_lens_cpu = [9, 9]
    between = run_batch(TpModelWorker(), batch)
    return first, between, split_step(batch, False)
