# expect: reported MWB112
"""Adversary of the reader one call away: a mixin built by `exec` from source in a string also
defines `sample`, and reads a field the batch lacks; the call on `self` reaches it."""
from sglang.srt.managers.schedule_batch import ModelWorkerBatch, ScheduleBatch
from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.srt.model_executor.forward_batch_info import CaptureHiddenMode, ForwardBatch, ForwardMode
from sglang.standin import make_batch, record, run_batch

import types

MIXIN = types.ModuleType("mixin")
exec(
    "class LengthsMixin:\n"
    "    def sample(self, logits, batch):\n"
    "        return logits, batch.extend_seq_lens\n",
    MIXIN.__dict__,
)


class Worker(TpModelWorker):
    def forward_batch_generation(self, model_worker_batch: ModelWorkerBatch):
        logits = self._forward(model_worker_batch)
        return self.sample(logits, model_worker_batch)

    def sample(self, logits, model_worker_batch: ModelWorkerBatch):
        return logits, model_worker_batch.seq_lens


class LengthsWorker(MIXIN.LengthsMixin, Worker):
    pass


def main():
    return [run_batch(LengthsWorker(), make_batch(forward_mode=mode)) for mode in ForwardMode]
