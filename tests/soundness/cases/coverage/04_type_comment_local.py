# expect: same
"""A type comment on the bound local names the class: rewritten, nothing at run time changes."""
from sglang.srt.managers.schedule_batch import ModelWorkerBatch, ScheduleBatch
from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.srt.model_executor.forward_batch_info import CaptureHiddenMode, ForwardBatch, ForwardMode
from sglang.standin import make_batch, record


def main():
    batch = make_batch()
    model_worker_batch = batch.get_model_worker_batch()  # type: ModelWorkerBatch
    record("seq_lens", model_worker_batch.seq_lens)
    return TpModelWorker().forward_batch_generation(model_worker_batch)
