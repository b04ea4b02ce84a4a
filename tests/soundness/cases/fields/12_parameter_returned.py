# expect: reported MWB149
"""A helper returns its parameter's lora_ids; the caller changes the list, then forwards."""
from sglang.srt.managers.schedule_batch import ModelWorkerBatch, ScheduleBatch
from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.srt.model_executor.forward_batch_info import CaptureHiddenMode, ForwardBatch, ForwardMode
from sglang.standin import make_batch, record


def adapters(model_worker_batch):
    return model_worker_batch.lora_ids


def main():
    batch = make_batch()
    model_worker_batch = batch.get_model_worker_batch()
    adapters(model_worker_batch).append("late")
    TpModelWorker().forward_batch_generation(model_worker_batch)
