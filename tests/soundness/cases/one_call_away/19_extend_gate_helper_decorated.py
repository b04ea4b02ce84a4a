# expect: same MWB105
"""Adversary of the gate one call up: the helper is decorated, and the decorator, not the gated
caller, decides what the helper is handed (here a decode batch of its own, as a snapshot): the
gate is not proven and the read stays marked."""
from sglang.srt.managers.schedule_batch import ModelWorkerBatch, ScheduleBatch
from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.srt.model_executor.forward_batch_info import CaptureHiddenMode, ForwardBatch, ForwardMode
from sglang.standin import make_batch, record, run_batch


def also_on_decode(helper):
    def wrapper(self, model_worker_batch):
        record("decode", helper(self, make_batch(forward_mode=ForwardMode.DECODE).get_model_worker_batch()))
        return helper(self, model_worker_batch)

    return wrapper


class Worker(TpModelWorker):
    def forward_batch_generation(self, model_worker_batch: ModelWorkerBatch):
        if model_worker_batch.forward_mode.is_extend():
            return self._extend_lengths(model_worker_batch)
        return None

    @also_on_decode
    def _extend_lengths(self, model_worker_batch: ModelWorkerBatch):
        return model_worker_batch.extend_seq_lens


def main():
    return run_batch(Worker(), make_batch())
