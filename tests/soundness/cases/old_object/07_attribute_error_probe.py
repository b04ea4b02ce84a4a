# expect: reported MWB183
"""`try: b.extend_lens / except AttributeError`: the old object had no such field; the snapshot answers it."""
from sglang.srt.managers.schedule_batch import ModelWorkerBatch, ScheduleBatch
from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.srt.model_executor.forward_batch_info import CaptureHiddenMode, ForwardBatch, ForwardMode
from sglang.standin import make_batch, record


def main():
    batch = make_batch()
    worker = TpModelWorker()
    model_worker_batch = batch.get_model_worker_batch()
    batch.seq_lens = [2, 2]
    try:
        lengths = model_worker_batch.extend_lens
    except AttributeError:
        lengths = "old object"
    record("lengths", lengths)
    return worker.forward_batch_generation(model_worker_batch)
