# expect: same
"""Two snapshots of one batch compare equal, and a snapshot's repr names the old class."""
from sglang.srt.managers.schedule_batch import ModelWorkerBatch, ScheduleBatch
from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.srt.model_executor.forward_batch_info import CaptureHiddenMode, ForwardBatch, ForwardMode
from sglang.standin import make_batch, record


def main():
    batch = make_batch()
    worker = TpModelWorker()
    first = batch.get_model_worker_batch()
    second = batch.get_model_worker_batch()
    batch.prepare_for_decode()
    record("equal", first == second)
    record("repr", repr(first).split("(")[0])
    worker.forward_batch_generation(first)
    return worker.forward_batch_generation(second)
