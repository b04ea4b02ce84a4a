# expect: same MWB105
"""Adversary of the gate one call up, across modules: the worker calls its helper only under an
extend test, and a module of the plugin calls the same helper on a decode batch, ungated. The gate
is not proven, so the helper's read stays marked (that ungated call hands it a kept snapshot, whose
extend lengths are None in decode as the old object's were)."""

from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.srt.model_executor.forward_batch_info import ForwardMode
from sglang.standin import make_batch, schedule

from .debug import dump
from .workers import GatedWorker


def main():
    worker = GatedWorker()
    batch = make_batch(forward_mode=ForwardMode.DECODE, extend_lens=[3, 4])
    return schedule(worker, batch), dump(worker, batch)


# --- module: plugin/workers.py ---
from sglang.srt.managers.schedule_batch import ModelWorkerBatch
from sglang.srt.managers.tp_worker import TpModelWorker


class GatedWorker(TpModelWorker):
    def forward_batch_generation(self, model_worker_batch: ModelWorkerBatch, **kwargs):
        if model_worker_batch.forward_mode.is_extend():
            return self._extend_lengths(model_worker_batch)
        return None

    def _extend_lengths(self, model_worker_batch: ModelWorkerBatch):
        return model_worker_batch.extend_seq_lens


# --- module: plugin/debug.py ---
def dump(worker, batch):
    return worker._extend_lengths(batch.get_model_worker_batch())
