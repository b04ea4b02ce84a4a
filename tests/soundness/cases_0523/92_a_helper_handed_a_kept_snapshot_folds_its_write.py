# expect: reported MWB138
"""A verify helper writes the capture mode on its parameter and forwards it; its caller hands it a
kept snapshot and reads the snapshot after. The old object kept the write, so the caller's draft
`init_new` read FULL. From 0.5.16 the write becomes the forward's keyword; since this module hands
the helper a kept snapshot, the fold is marked: the caller's snapshot no longer holds it."""

from sglang.srt.managers.schedule_batch import ModelWorkerBatch
from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.srt.model_executor.forward_batch_info import CaptureHiddenMode, ForwardBatch
from sglang.srt.model_executor.model_runner import ModelRunner
from sglang.standin import make_batch, record


class DraftRunner(ModelRunner):
    is_draft_worker = True


class Spec:
    def __init__(self, target_worker):
        self.target_worker = target_worker
        self.draft_runner = DraftRunner()

    def verify(self, model_worker_batch: ModelWorkerBatch):
        model_worker_batch.capture_hidden_mode = CaptureHiddenMode.FULL
        return self.target_worker.forward_batch_generation(model_worker_batch)

    def step(self, batch):
        mwb = batch.get_model_worker_batch()
        result = self.verify(mwb)
        draft = ForwardBatch.init_new(mwb, self.draft_runner)
        record("draft_mode", draft.observed["capture_hidden_mode"])
        return result


def main():
    return Spec(TpModelWorker()).step(make_batch())
