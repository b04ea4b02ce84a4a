# expect: same
"""lora_ids and dllm_block_offsets, computed from the requests, read on the snapshot."""
from sglang.srt.managers.schedule_batch import ModelWorkerBatch, ScheduleBatch
from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.srt.model_executor.forward_batch_info import CaptureHiddenMode, ForwardBatch, ForwardMode
from sglang.standin import make_batch, record


def main():
    batch = make_batch()
    model_worker_batch = batch.get_model_worker_batch()
    record("lora", model_worker_batch.lora_ids)
    record("offsets", model_worker_batch.dllm_block_offsets)
