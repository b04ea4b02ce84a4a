# expect: same
"""A batch whose `__copy__` makes a light copy: taking the snapshot never calls it."""
from sglang.srt.managers.schedule_batch import ModelWorkerBatch, ScheduleBatch
from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.srt.model_executor.forward_batch_info import CaptureHiddenMode, ForwardBatch, ForwardMode
from sglang.standin import make_batch, record


def main():
    batch = make_batch()
    copies = []

    def light_copy():
        copies.append("copied")
        return batch

    batch.__class__.__copy__ = lambda self: light_copy()
    worker = TpModelWorker()
    model_worker_batch = batch.get_model_worker_batch()
    batch.seq_lens = [9, 9]
    record("copies", copies)
    return worker.forward_batch_generation(model_worker_batch)
