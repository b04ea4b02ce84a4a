# expect: same
"""`batch.__dict__.update(saved)` writes fields."""
from sglang.srt.managers.schedule_batch import ModelWorkerBatch, ScheduleBatch
from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.srt.model_executor.forward_batch_info import CaptureHiddenMode, ForwardBatch, ForwardMode
from sglang.standin import make_batch, record


def main():
    batch = make_batch()
    worker = TpModelWorker()
    saved = {"seq_lens": [1, 1]}
    mwb = batch.get_model_worker_batch()
    batch.__dict__.update(saved)
    return worker.forward_batch_generation(mwb)
