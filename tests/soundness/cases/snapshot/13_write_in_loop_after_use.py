# expect: same
"""The write follows the use textually but precedes it on the next iteration."""
from sglang.srt.managers.schedule_batch import ModelWorkerBatch, ScheduleBatch
from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.srt.model_executor.forward_batch_info import CaptureHiddenMode, ForwardBatch, ForwardMode
from sglang.standin import make_batch, record


def main():
    batch = make_batch()
    worker = TpModelWorker()
    model_worker_batch = batch.get_model_worker_batch()
    for step in range(2):
        worker.forward_batch_generation(model_worker_batch)
        batch.seq_lens = [step + 5, step + 6]
