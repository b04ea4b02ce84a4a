# expect: reported MWB138
"""One module. The helper's call and the later read of the kept snapshot are in one statement
(a tuple returned): `verify` runs first and writes FULL on the old object, then the draft init_new reads it."""

from sglang.srt.managers.schedule_batch import ModelWorkerBatch
from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.srt.model_executor.forward_batch_info import CaptureHiddenMode, ForwardBatch
from sglang.srt.model_executor.model_runner import ModelRunner
from sglang.standin import make_batch


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
        return self.verify(mwb), self.draft_runner.forward(ForwardBatch.init_new(mwb, self.draft_runner))


def main():
    return Spec(TpModelWorker()).step(make_batch(return_hidden_states=False))
