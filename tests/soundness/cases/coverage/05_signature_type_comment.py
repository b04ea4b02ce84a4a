# expect: same
"""A parameter typed only by a signature type comment is not migrated like an annotated one."""
from sglang.srt.managers.schedule_batch import ModelWorkerBatch, ScheduleBatch
from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.srt.model_executor.forward_batch_info import CaptureHiddenMode, ForwardBatch, ForwardMode
from sglang.standin import make_batch, record


def _extend_lens(snapshot):
    # type: (ModelWorkerBatch) -> list
    return snapshot.extend_seq_lens


def main():
    batch = make_batch()
    model_worker_batch = batch.get_model_worker_batch()
    record("extend", _extend_lens(model_worker_batch))
    return TpModelWorker().forward_batch_generation(model_worker_batch)
