# expect: reported MWB138
"""One module. The step calls `verify` through a bound-method alias (`check = self.verify`), hands it
its kept snapshot, and builds a draft forward batch from the snapshot after."""

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
        check = self.verify
        mwb = batch.get_model_worker_batch()
        result = check(mwb)
        draft = ForwardBatch.init_new(mwb, self.draft_runner)
        record("draft_mode", draft.capture_hidden_mode)
        return result


def main():
    return Spec(TpModelWorker()).step(make_batch())
