# expect: reported MWB183
"""A request's lora_id changes after the snapshot: the old lora_ids were read at the call."""
from sglang.srt.managers.schedule_batch import ModelWorkerBatch, ScheduleBatch
from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.srt.model_executor.forward_batch_info import CaptureHiddenMode, ForwardBatch, ForwardMode
from sglang.standin import make_batch, record


def main():
    batch = make_batch()
    worker = TpModelWorker()
    model_worker_batch = batch.get_model_worker_batch()
    for req in batch.reqs:
        req.lora_id = "adapter-2"
    worker.forward_batch_generation(model_worker_batch)
