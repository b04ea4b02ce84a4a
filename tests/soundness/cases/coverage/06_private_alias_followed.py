# expect: same
"""A private module-level alias of the class, used as an annotation: followed like the class."""
from sglang.srt.managers.schedule_batch import ModelWorkerBatch, ScheduleBatch
from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.srt.model_executor.forward_batch_info import CaptureHiddenMode, ForwardBatch, ForwardMode
from sglang.standin import make_batch, record

_Snapshot = ModelWorkerBatch


def _forward(worker: TpModelWorker, snapshot: _Snapshot):
    record("lora", snapshot.lora_ids)
    record("extend", snapshot.extend_seq_lens)
    return worker.forward_batch_generation(snapshot)


def main():
    batch = make_batch()
    return _forward(TpModelWorker(), batch.get_model_worker_batch())
