# expect: reported MWB183
"""lora_ids overwritten through a tuple target: a write, kept and reported."""
from sglang.srt.managers.schedule_batch import ModelWorkerBatch, ScheduleBatch
from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.srt.model_executor.forward_batch_info import CaptureHiddenMode, ForwardBatch, ForwardMode
from sglang.standin import make_batch, record


def main():
    batch = make_batch()
    model_worker_batch = batch.get_model_worker_batch()
    model_worker_batch.lora_ids, step = ["x", "y"], 2
    TpModelWorker().forward_batch_generation(model_worker_batch)
    record("step", step)
