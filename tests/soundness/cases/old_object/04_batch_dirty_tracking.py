# expect: same
"""A batch class that records every attribute written on it: the snapshot writes nothing there."""
from sglang.srt.managers.schedule_batch import ModelWorkerBatch, ScheduleBatch
from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.srt.model_executor.forward_batch_info import CaptureHiddenMode, ForwardBatch, ForwardMode
from sglang.standin import make_batch, record

DIRTY = []


def main():
    batch = make_batch()
    batch_class = type(batch)

    def tracking(self, name, value):
        DIRTY.append(name)
        object.__setattr__(self, name, value)

    batch_class.__setattr__ = tracking
    worker = TpModelWorker()
    cpu = [7, 8]
    model_worker_batch = batch.get_model_worker_batch(seq_lens_cpu_cache=cpu)
    batch.seq_lens = [1, 1]
    result = worker.forward_batch_generation(model_worker_batch)
    del batch_class.__setattr__
    record("dirty", sorted(set(DIRTY)))
    return result
