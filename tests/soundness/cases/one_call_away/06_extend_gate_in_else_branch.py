# expect: reported MWB105
"""Adversary of the gate one call up: the call sits in the else branch of the extend test."""
from sglang.srt.managers.schedule_batch import ModelWorkerBatch, ScheduleBatch
from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.srt.model_executor.forward_batch_info import CaptureHiddenMode, ForwardBatch, ForwardMode
from sglang.standin import make_batch, record, run_batch


class Worker(TpModelWorker):
    def forward_batch_generation(self, model_worker_batch: ModelWorkerBatch):
        if model_worker_batch.forward_mode.is_extend():
            return None
        else:
            return self._extend(model_worker_batch)

    def _extend(self, model_worker_batch: ModelWorkerBatch):
        return model_worker_batch.extend_seq_lens


def main():
    return run_batch(Worker(), make_batch(forward_mode=ForwardMode.DECODE))
