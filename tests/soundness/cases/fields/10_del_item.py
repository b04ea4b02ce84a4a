# expect: reported MWB183
"""An item deleted from the snapshot's dllm_block_offsets."""
from sglang.srt.managers.schedule_batch import ModelWorkerBatch, ScheduleBatch
from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.srt.model_executor.forward_batch_info import CaptureHiddenMode, ForwardBatch, ForwardMode
from sglang.standin import make_batch, record


def main():
    batch = make_batch()
    model_worker_batch = batch.get_model_worker_batch()
    del model_worker_batch.dllm_block_offsets[0]
    TpModelWorker().forward_batch_generation(model_worker_batch)
