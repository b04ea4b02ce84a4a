# expect: reported MWB138
"""One module, no kept snapshot: a spec step takes the old object as its parameter, hands it to
`verify` (which writes FULL on it and forwards on the target worker), then builds the draft forward
batch from it. The old object kept FULL for the draft init_new."""

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

    def step(self, model_worker_batch: ModelWorkerBatch):
        result = self.verify(model_worker_batch)
        draft = ForwardBatch.init_new(model_worker_batch, self.draft_runner)
        record("draft_mode", draft.capture_hidden_mode)
        return result


def main():
    return Spec(TpModelWorker()).step(make_batch().get_model_worker_batch())
