# expect: same
"""An inline snapshot put on a queue; the batch is decoded before the consumer forwards it."""
from sglang.srt.managers.schedule_batch import ModelWorkerBatch, ScheduleBatch
from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.srt.model_executor.forward_batch_info import CaptureHiddenMode, ForwardBatch, ForwardMode
from sglang.standin import make_batch, record

import queue


def main():
    batch = make_batch()
    worker = TpModelWorker()
    q = queue.Queue()
    q.put(batch.get_model_worker_batch())
    batch.prepare_for_decode()
    return worker.forward_batch_generation(q.get())
