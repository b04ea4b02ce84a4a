# expect: same
"""A snapshot forwarded twice keeps its override and its capture mode for the second forward too."""
from sglang.srt.managers.schedule_batch import ModelWorkerBatch, ScheduleBatch
from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.srt.model_executor.forward_batch_info import CaptureHiddenMode, ForwardBatch, ForwardMode
from sglang.standin import make_batch, record


def main():
    batch = make_batch(return_hidden_states=True)
    worker = TpModelWorker()
    model_worker_batch = batch.get_model_worker_batch(seq_lens_cpu_cache=[5, 6])
    batch.seq_lens = [1, 1]
    worker.forward_batch_generation(model_worker_batch)
    record("capture after", model_worker_batch.capture_hidden_mode)
    return worker.forward_batch_generation(model_worker_batch)
