# expect: reported MWB138
"""Case 92 split across modules: the verify helper (plugin/spec.py) writes the capture mode on its
parameter and forwards it on its target worker; the caller (main module) keeps a snapshot, hands it
to the helper and then builds a draft forward batch from the same snapshot. The old object kept
the FULL write, so the draft init_new read FULL."""

from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.srt.model_executor.forward_batch_info import ForwardBatch
from sglang.srt.model_executor.model_runner import ModelRunner
from sglang.standin import make_batch, record

from .spec import Verifier


class DraftRunner(ModelRunner):
    is_draft_worker = True


class Spec(Verifier):
    def step(self, batch):
        mwb = batch.get_model_worker_batch()
        result = self.verify(mwb)
        draft = ForwardBatch.init_new(mwb, DraftRunner())
        record("draft_mode", draft.observed["capture_hidden_mode"])
        return result


def main():
    return Spec(TpModelWorker()).step(make_batch())


# --- module: plugin/spec.py ---
from sglang.srt.managers.schedule_batch import ModelWorkerBatch
from sglang.srt.model_executor.forward_batch_info import CaptureHiddenMode


class Verifier:
    def __init__(self, target_worker):
        self.target_worker = target_worker

    def verify(self, model_worker_batch: ModelWorkerBatch):
        model_worker_batch.capture_hidden_mode = CaptureHiddenMode.FULL
        return self.target_worker.forward_batch_generation(model_worker_batch)
