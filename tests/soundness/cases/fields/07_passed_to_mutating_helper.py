# expect: reported MWB183
"""lora_ids handed to a helper that pads it in place before the forward."""
from sglang.srt.managers.schedule_batch import ModelWorkerBatch, ScheduleBatch
from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.srt.model_executor.forward_batch_info import CaptureHiddenMode, ForwardBatch, ForwardMode
from sglang.standin import make_batch, record


def pad(ids):
    ids.append(None)


def main():
    batch = make_batch()
    model_worker_batch = batch.get_model_worker_batch()
    pad(model_worker_batch.lora_ids)
    TpModelWorker().forward_batch_generation(model_worker_batch)
