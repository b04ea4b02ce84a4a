# expect: same
"""`ModelWorkerBatch | None` is Optional: the parameter is migrated, its fields renamed."""
from sglang.srt.managers.schedule_batch import ModelWorkerBatch, ScheduleBatch
from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.srt.model_executor.forward_batch_info import CaptureHiddenMode, ForwardBatch, ForwardMode
from sglang.standin import make_batch, record


def _forward(worker: TpModelWorker, snapshot: ModelWorkerBatch | None, other: None | ModelWorkerBatch = None):
    if snapshot is None:
        return None
    record("extend", snapshot.extend_seq_lens)
    record("prefix", snapshot.extend_prefix_lens)
    return worker.forward_batch_generation(snapshot)


def main():
    batch = make_batch()
    return _forward(TpModelWorker(), batch.get_model_worker_batch())
