# expect: same
"""A property on the batch's class for `seq_lens_cpu`: the override the snapshot took wins, as it did."""
from sglang.srt.managers.schedule_batch import ModelWorkerBatch, ScheduleBatch
from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.srt.model_executor.forward_batch_info import CaptureHiddenMode, ForwardBatch, ForwardMode
from sglang.standin import make_batch, record


def main():
    batch = make_batch()
    batch.__dict__["_cpu"] = [3, 4]
    type(batch).seq_lens_cpu = property(lambda self: self.__dict__["_cpu"], lambda self, v: self.__dict__.__setitem__("_cpu", v))
    worker = TpModelWorker()
    model_worker_batch = batch.get_model_worker_batch(seq_lens_cpu_cache=[30, 40])
    batch.seq_lens = [8, 8]
    record("cpu", model_worker_batch.seq_lens_cpu)
    result = worker.forward_batch_generation(model_worker_batch)
    del type(batch).seq_lens_cpu
    return result
