# expect: same
"""`functools.partial` keeps the snapshot; the batch changes before the call."""
from sglang.srt.managers.schedule_batch import ModelWorkerBatch, ScheduleBatch
from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.srt.model_executor.forward_batch_info import CaptureHiddenMode, ForwardBatch, ForwardMode
from sglang.standin import make_batch, record

import functools


def main():
    batch = make_batch()
    worker = TpModelWorker()
    mwb = batch.get_model_worker_batch()
    run = functools.partial(worker.forward_batch_generation, mwb)
    batch.prepare_for_decode()
    return run()
