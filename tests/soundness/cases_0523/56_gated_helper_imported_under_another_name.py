# expect: same MWB105
"""Adversary of the gate one call up: a module of the plugin imports the gated helper under another
name and calls it there, ungated; no call by that name is counted, so the import is what rules the
proof out (that call hands it a kept snapshot, whose extend lengths are None in decode)."""

from sglang.srt.model_executor.forward_batch_info import ForwardMode
from sglang.standin import make_batch, schedule

from .debug import dump
from .workers import GatedWorker


def main():
    worker = GatedWorker()
    batch = make_batch(forward_mode=ForwardMode.DECODE, extend_lens=[3, 4])
    return schedule(worker, batch), dump(batch)


# --- module: plugin/workers.py ---
from sglang.srt.managers.schedule_batch import ModelWorkerBatch
from sglang.srt.managers.tp_worker import TpModelWorker


def extend_lengths(model_worker_batch: ModelWorkerBatch):
    return model_worker_batch.extend_seq_lens


class GatedWorker(TpModelWorker):
    def forward_batch_generation(self, model_worker_batch: ModelWorkerBatch, **kwargs):
        if model_worker_batch.forward_mode.is_extend():
            return extend_lengths(model_worker_batch)
        return None


# --- module: plugin/debug.py ---
from sglang.srt.managers.schedule_batch import ModelWorkerBatch

from .workers import extend_lengths as lengths


def dump(batch):
    model_worker_batch: ModelWorkerBatch = batch.get_model_worker_batch()
    return lengths(model_worker_batch)
