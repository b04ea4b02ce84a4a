# expect: same
"""A batch class whose `__del__` frees pool slots: the snapshot is no batch, so it frees nothing."""
import gc

from sglang.srt.managers.schedule_batch import ModelWorkerBatch, ScheduleBatch
from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.srt.model_executor.forward_batch_info import CaptureHiddenMode, ForwardBatch, ForwardMode
from sglang.standin import make_batch, record

FREED = []


def main():
    batch = make_batch()
    type(batch).__del__ = lambda self: FREED.append(len(self.reqs))
    worker = TpModelWorker()
    model_worker_batch = batch.get_model_worker_batch()
    batch.seq_lens = [5, 5]
    result = worker.forward_batch_generation(model_worker_batch)
    del model_worker_batch
    gc.collect()
    record("freed", list(FREED))
    del type(batch).__del__
    return result
