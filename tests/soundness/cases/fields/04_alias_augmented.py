# expect: reported MWB183
"""dllm_block_offsets bound to a name that `+=` extends in place."""
from sglang.srt.managers.schedule_batch import ModelWorkerBatch, ScheduleBatch
from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.srt.model_executor.forward_batch_info import CaptureHiddenMode, ForwardBatch, ForwardMode
from sglang.standin import make_batch, record


def main():
    batch = make_batch()
    worker = TpModelWorker()
    model_worker_batch = batch.get_model_worker_batch()
    offsets = model_worker_batch.dllm_block_offsets
    offsets += [16]
    worker.forward_batch_generation(model_worker_batch)
