# expect: same
"""A helper of the module that keeps its argument in a module list."""
from sglang.srt.managers.schedule_batch import ModelWorkerBatch, ScheduleBatch
from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.srt.model_executor.forward_batch_info import CaptureHiddenMode, ForwardBatch, ForwardMode
from sglang.standin import make_batch, record

KEPT = []


def helper(mwb):
    KEPT.append(mwb)


def main():
    batch = make_batch()
    worker = TpModelWorker()
    mwb = batch.get_model_worker_batch()
    helper(mwb)
    batch.prepare_for_decode()
    return worker.forward_batch_generation(KEPT[0])
