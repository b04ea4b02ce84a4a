# expect: same unmarked
"""An override written on a snapshot kept in code, then two forwards of it: the kept snapshot holds
the override for both, as the old object did, so no forward takes it from another."""
from sglang.srt.managers.schedule_batch import ModelWorkerBatch, ScheduleBatch
from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.srt.model_executor.forward_batch_info import CaptureHiddenMode, ForwardBatch, ForwardMode
from sglang.standin import make_batch, record


def main():
    batch = make_batch()
    worker = TpModelWorker()
    model_worker_batch = batch.get_model_worker_batch()
    model_worker_batch.capture_hidden_mode = CaptureHiddenMode.FULL
    first = worker.forward_batch_generation(model_worker_batch)
    record("between", batch.seq_lens)
    return first, worker.forward_batch_generation(model_worker_batch)
