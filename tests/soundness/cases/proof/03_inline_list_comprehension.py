# expect: same
"""Snapshots of micro-batches built in a comprehension, decoded before the forwards."""
from sglang.srt.managers.schedule_batch import ModelWorkerBatch, ScheduleBatch
from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.srt.model_executor.forward_batch_info import CaptureHiddenMode, ForwardBatch, ForwardMode
from sglang.standin import make_batch, record


def main():
    batches = [make_batch(), make_batch(seq_lens=[5, 6])]
    worker = TpModelWorker()
    snapshots = [b.get_model_worker_batch() for b in batches]
    for b in batches:
        b.prepare_for_decode()
    return [worker.forward_batch_generation(s) for s in snapshots]
