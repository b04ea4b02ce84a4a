# expect: same
"""Only reads of the computed fields: len, membership, iteration, items, copies, a ternary."""
from sglang.srt.managers.schedule_batch import ModelWorkerBatch, ScheduleBatch
from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.srt.model_executor.forward_batch_info import CaptureHiddenMode, ForwardBatch, ForwardMode
from sglang.standin import make_batch, record


def main():
    batch = make_batch()
    model_worker_batch = batch.get_model_worker_batch()
    record("len", len(model_worker_batch.lora_ids))
    record("in", "a" in model_worker_batch.lora_ids)
    record("iter", [offset * 2 for offset in model_worker_batch.dllm_block_offsets])
    record("item", model_worker_batch.lora_ids[0])
    record("copy", model_worker_batch.lora_ids.copy())
    record("count", model_worker_batch.dllm_block_offsets.count(8))
    record("pick", model_worker_batch.lora_ids if model_worker_batch.lora_ids else [])
    TpModelWorker().forward_batch_generation(model_worker_batch)
