# expect: same
"""The snapshot is stored on an object; the batch changes later and the stored value is read."""
from sglang.srt.managers.schedule_batch import ModelWorkerBatch, ScheduleBatch
from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.srt.model_executor.forward_batch_info import CaptureHiddenMode, ForwardBatch, ForwardMode
from sglang.standin import make_batch, record


class _Holder:
    last = None


def main():
    batch = make_batch()
    worker = TpModelWorker()
    holder = _Holder()
    model_worker_batch = batch.get_model_worker_batch()
    holder.last = model_worker_batch
    worker.forward_batch_generation(model_worker_batch)
    batch.prepare_for_decode()
    record("stored", holder.last.seq_lens)
