# expect: same
"""The snapshot is appended to a history list that outlives later changes of the batch."""
from sglang.srt.managers.schedule_batch import ModelWorkerBatch, ScheduleBatch
from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.srt.model_executor.forward_batch_info import CaptureHiddenMode, ForwardBatch, ForwardMode
from sglang.standin import make_batch, record


def main():
    batch = make_batch()
    worker = TpModelWorker()
    history = []
    model_worker_batch = batch.get_model_worker_batch()
    history.append(model_worker_batch)
    worker.forward_batch_generation(model_worker_batch)
    batch.seq_lens = [8, 8]
    record("history", [h.seq_lens for h in history])
