# expect: same
"""The snapshot is kept in a dict and a tuple, read after the batch changed."""
from sglang.srt.managers.schedule_batch import ModelWorkerBatch, ScheduleBatch
from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.srt.model_executor.forward_batch_info import CaptureHiddenMode, ForwardBatch, ForwardMode
from sglang.standin import make_batch, record


def main():
    batch = make_batch()
    worker = TpModelWorker()
    model_worker_batch = batch.get_model_worker_batch()
    by_step = {0: model_worker_batch}
    pair = (model_worker_batch, 0)
    worker.forward_batch_generation(model_worker_batch)
    batch.seq_lens = [6, 6]
    record("dict", by_step[0].seq_lens)
    record("tuple", pair[0].seq_lens)
