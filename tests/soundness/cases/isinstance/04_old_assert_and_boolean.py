# expect: same
"""An assert and a boolean expression on the old object: both stay true."""
from sglang.srt.managers.schedule_batch import ModelWorkerBatch, ScheduleBatch
from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.srt.model_executor.forward_batch_info import CaptureHiddenMode, ForwardBatch, ForwardMode
from sglang.standin import make_batch, record


def main():
    batch = make_batch()
    model_worker_batch = batch.get_model_worker_batch()
    assert isinstance(model_worker_batch, ModelWorkerBatch)
    ready = isinstance(model_worker_batch, ModelWorkerBatch) and len(model_worker_batch.seq_lens) == 2
    record("ready", ready)
    TpModelWorker().forward_batch_generation(model_worker_batch)
