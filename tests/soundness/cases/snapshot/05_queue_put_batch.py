# expect: same
"""The batch is put on a queue whose consumer changes it before the forward."""
from sglang.srt.managers.schedule_batch import ModelWorkerBatch, ScheduleBatch
from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.srt.model_executor.forward_batch_info import CaptureHiddenMode, ForwardBatch, ForwardMode
from sglang.standin import make_batch, record


class _Queue:
    def put(self, item):
        item.forward_mode = ForwardMode.DECODE


def main():
    batch = make_batch()
    worker = TpModelWorker()
    queue = _Queue()
    model_worker_batch = batch.get_model_worker_batch()
    queue.put(batch)
    worker.forward_batch_generation(model_worker_batch)
