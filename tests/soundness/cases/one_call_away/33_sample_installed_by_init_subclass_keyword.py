# expect: reported MWB112
"""Adversary of the reader one call away. A worker family takes per-subclass hooks as class keywords (`class W(Base, sample=f)`), which
`__init_subclass__` installs with setattr. The subclass's `sample` reads the extend lengths,
which the old object gated on the forward mode; the call on `self` reaches it. The keyword is
no definition, name or string the pre-pass reads."""
from sglang.srt.managers.schedule_batch import ModelWorkerBatch, ScheduleBatch
from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.srt.model_executor.forward_batch_info import CaptureHiddenMode, ForwardBatch, ForwardMode
from sglang.standin import make_batch, record, run_batch


def _lengths_sample(self, logits, batch):
    return logits, batch.extend_seq_lens


class Worker(TpModelWorker):
    def __init_subclass__(cls, **hooks):
        super().__init_subclass__()
        for name, hook in hooks.items():
            setattr(cls, name, hook)

    def forward_batch_generation(self, model_worker_batch: ModelWorkerBatch):
        logits = self._forward(model_worker_batch)
        return self.sample(logits, model_worker_batch)

    def sample(self, logits, model_worker_batch: ModelWorkerBatch):
        return logits, model_worker_batch.seq_lens


class LengthsWorker(Worker, sample=_lengths_sample):
    pass


def main():
    return [run_batch(LengthsWorker(), make_batch(forward_mode=mode)) for mode in ForwardMode]
