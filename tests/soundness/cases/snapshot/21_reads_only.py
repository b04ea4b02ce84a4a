# expect: same
"""Only reads of the batch between the snapshot and its uses."""
from sglang.srt.managers.schedule_batch import ModelWorkerBatch, ScheduleBatch
from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.srt.model_executor.forward_batch_info import CaptureHiddenMode, ForwardBatch, ForwardMode
from sglang.standin import make_batch, record


def main():
    batch = make_batch()
    worker = TpModelWorker()
    model_worker_batch = batch.get_model_worker_batch()
    record("bs", len(batch.reqs))
    record("mode", batch.forward_mode.is_decode())
    record("lens", list(batch.seq_lens))
    worker.forward_batch_generation(model_worker_batch)
    record("after", model_worker_batch.seq_lens)
