# expect: reported MWB138
"""One module. The step keeps a snapshot and hands it to `run`, which hands it on to `verify`;
`verify` writes the capture mode and forwards it on the target worker. The step then builds a
draft forward batch from its snapshot: the old object kept FULL."""

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

    def run(self, model_worker_batch: ModelWorkerBatch):
        record("run", model_worker_batch.seq_lens)
        return self.verify(model_worker_batch)

    def step(self, batch):
        mwb = batch.get_model_worker_batch()
        result = self.run(mwb)
        draft = ForwardBatch.init_new(mwb, self.draft_runner)
        record("draft_mode", draft.capture_hidden_mode)
        return result


def main():
    return Spec(TpModelWorker()).step(make_batch())
