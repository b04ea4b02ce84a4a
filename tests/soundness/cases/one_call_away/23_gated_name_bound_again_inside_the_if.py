# expect: reported MWB105
"""Adversary of the gate one call up: the caller tests its batch's mode, then binds the name to
another batch, in decode, inside the `if` and hands that on."""
from sglang.srt.managers.schedule_batch import ModelWorkerBatch, ScheduleBatch
from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.srt.model_executor.forward_batch_info import CaptureHiddenMode, ForwardBatch, ForwardMode
from sglang.standin import make_batch, record, run_batch


class Worker(TpModelWorker):
    def forward_batch_generation(self, model_worker_batch: ModelWorkerBatch):
        if model_worker_batch.forward_mode.is_extend():
            model_worker_batch = self.other
            return self._extend_lengths(model_worker_batch)
        return None

    def _extend_lengths(self, model_worker_batch: ModelWorkerBatch):
        return model_worker_batch.extend_seq_lens


def main():
    worker = Worker()
    worker.other = make_batch(forward_mode=ForwardMode.DECODE)
    return run_batch(worker, make_batch())
