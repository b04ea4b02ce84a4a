# expect: same unmarked
"""`hasattr` and `getattr` with a default of the old object's own fields answer as they did."""
from sglang.srt.managers.schedule_batch import ModelWorkerBatch, ScheduleBatch
from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.srt.model_executor.forward_batch_info import CaptureHiddenMode, ForwardBatch, ForwardMode
from sglang.standin import make_batch, record


def main():
    batch = make_batch()
    worker = TpModelWorker()
    model_worker_batch = batch.get_model_worker_batch()
    batch.seq_lens = [2, 2]
    record("has", hasattr(model_worker_batch, "extend_seq_lens"))
    record("default", getattr(model_worker_batch, "lora_ids", "none"))
    return worker.forward_batch_generation(model_worker_batch)
