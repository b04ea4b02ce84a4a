# expect: reported MWB183
"""lora_ids bound to a name, and the name changed in place before the forward."""
from sglang.srt.managers.schedule_batch import ModelWorkerBatch, ScheduleBatch
from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.srt.model_executor.forward_batch_info import CaptureHiddenMode, ForwardBatch, ForwardMode
from sglang.standin import make_batch, record


def main():
    batch = make_batch()
    worker = TpModelWorker()
    model_worker_batch = batch.get_model_worker_batch()
    ids = model_worker_batch.lora_ids
    ids[0] = None
    worker.forward_batch_generation(model_worker_batch)
    record("ids", ids)
