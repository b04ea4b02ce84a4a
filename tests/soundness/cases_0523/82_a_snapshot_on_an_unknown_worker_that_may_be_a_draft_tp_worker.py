# expect: reported MWB138
"""A stock TpModelWorker on a draft runner forwards the old object of a batch that asks for hidden states (old: FULL)."""

from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.srt.model_executor.forward_batch_info import CaptureHiddenMode
from sglang.srt.model_executor.model_runner import ModelRunner
from sglang.standin import make_batch, record


class DraftRunner(ModelRunner):
    is_draft_worker = True


class SpecInput:
    capture_hidden_mode = CaptureHiddenMode.LAST


class Drafter:
    def __init__(self, draft_worker):
        self.draft_worker = draft_worker

    def step(self, batch):
        mwb = batch.get_model_worker_batch()
        record("bs", len(mwb.seq_lens))
        return self.draft_worker.forward_batch_generation(mwb)


def main():
    w = TpModelWorker()
    w.model_runner = DraftRunner()
    return Drafter(w).step(make_batch(spec_info=SpecInput(), return_hidden_states=True))
