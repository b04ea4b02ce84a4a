# expect: same
"""A parameter annotated with the old class, read and forwarded."""
from sglang.srt.managers.schedule_batch import ModelWorkerBatch, ScheduleBatch
from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.srt.model_executor.forward_batch_info import CaptureHiddenMode, ForwardBatch, ForwardMode
from sglang.standin import make_batch, record


def _forward(worker: TpModelWorker, mwb: ModelWorkerBatch):
    record("seq_lens", mwb.seq_lens)
    return worker.forward_batch_generation(mwb)


def main():
    batch = make_batch()
    return _forward(TpModelWorker(), batch.get_model_worker_batch())
