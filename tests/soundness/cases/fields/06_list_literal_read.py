# expect: same
"""dllm_block_offsets and lora_ids read inside list and tuple literals."""
from sglang.srt.managers.schedule_batch import ModelWorkerBatch, ScheduleBatch
from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.srt.model_executor.forward_batch_info import CaptureHiddenMode, ForwardBatch, ForwardMode
from sglang.standin import make_batch, record


def main():
    batch = make_batch()
    model_worker_batch = batch.get_model_worker_batch()
    record("pair", [model_worker_batch.dllm_block_offsets, 0])
    record("flags", (model_worker_batch.lora_ids == ["a", None], len(model_worker_batch.dllm_block_offsets)))
    TpModelWorker().forward_batch_generation(model_worker_batch)
