# expect: same
"""batch.seq_lens[0] = 5 changes the list the snapshot shared: both versions see it."""
from sglang.srt.managers.schedule_batch import ModelWorkerBatch, ScheduleBatch
from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.srt.model_executor.forward_batch_info import CaptureHiddenMode, ForwardBatch, ForwardMode
from sglang.standin import make_batch, record


def main():
    batch = make_batch()
    worker = TpModelWorker()
    model_worker_batch = batch.get_model_worker_batch()
    batch.seq_lens[0] = 5
    batch.out_cache_loc.append(102)
    worker.forward_batch_generation(model_worker_batch)
    record("after", model_worker_batch.seq_lens)
