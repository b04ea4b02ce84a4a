# expect: same
"""Computed fields read inside a tuple that is unpacked: reads, not writes."""
from sglang.srt.managers.schedule_batch import ModelWorkerBatch, ScheduleBatch
from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.srt.model_executor.forward_batch_info import CaptureHiddenMode, ForwardBatch, ForwardMode
from sglang.standin import make_batch, record


def main():
    batch = make_batch()
    model_worker_batch = batch.get_model_worker_batch()
    ids, count = model_worker_batch.lora_ids, 2
    offsets, step = model_worker_batch.dllm_block_offsets, 1
    record("ids", (ids, count))
    record("offsets", (offsets, step))
    TpModelWorker().forward_batch_generation(model_worker_batch)
