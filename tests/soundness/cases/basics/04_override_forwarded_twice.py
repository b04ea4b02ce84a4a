# expect: same
"""The old snapshot kept its override for both forwards; the one-shot field is gone after the first."""
from sglang.srt.managers.schedule_batch import ModelWorkerBatch, ScheduleBatch
from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.srt.model_executor.forward_batch_info import CaptureHiddenMode, ForwardBatch, ForwardMode
from sglang.standin import make_batch, record


def main():
    batch = make_batch()
    worker = TpModelWorker()
    model_worker_batch = batch.get_model_worker_batch(seq_lens_cpu_cache=[30, 40])
    worker.forward_batch_generation(model_worker_batch)
    return worker.forward_batch_generation(model_worker_batch)
