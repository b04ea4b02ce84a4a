# expect: reported MWB112
"""Adversary of the reader one call away, across modules: the worker's own `sample` reads only
copied fields, but a mixin in a module that never names the old API (which the pre-pass does not
parse) defines `sample` too, reading the extend lengths; the call on `self` reaches the mixin's."""

from sglang.srt.model_executor.forward_batch_info import ForwardMode
from sglang.standin import make_batch, schedule

from .workers import LengthsWorker


def main():
    return [schedule(LengthsWorker(), make_batch(forward_mode=mode, extend_lens=[3])) for mode in ForwardMode]


# --- module: plugin/workers.py ---
from sglang.srt.managers.schedule_batch import ModelWorkerBatch
from sglang.srt.managers.tp_worker import TpModelWorker

from .mixins import LengthsMixin


class Worker(TpModelWorker):
    def forward_batch_generation(self, model_worker_batch: ModelWorkerBatch, **kwargs):
        return self.sample("logits", model_worker_batch)

    def sample(self, logits, model_worker_batch: ModelWorkerBatch):
        return logits, list(model_worker_batch.seq_lens)


class LengthsWorker(LengthsMixin, Worker):
    pass


# --- module: plugin/mixins.py ---
class LengthsMixin:
    def sample(self, logits, batch):
        return logits, batch.extend_seq_lens
