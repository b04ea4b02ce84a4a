# expect: reported MWB138
"""An EAGLE subclass (plugin/spec.py) runs a draft pre-pass of the old object it is handed on its
`draft_worker` (a TpModelWorker on a draft runner), then super(). The batch asks for hidden
states: the old object carried FULL, which the old draft forward read."""

from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.srt.model_executor.model_runner import ModelRunner
from sglang.standin import make_batch, schedule

from .spec import PreDraft


class DraftRunner(ModelRunner):
    is_draft_worker = True


def main():
    draft = TpModelWorker()
    draft.model_runner = DraftRunner()
    worker = PreDraft(target_worker=TpModelWorker())
    worker.draft_worker = draft
    return schedule(worker, make_batch(algorithm="EAGLE", return_hidden_states=True))


# --- module: plugin/spec.py ---
from sglang.srt.managers.schedule_batch import ModelWorkerBatch
from sglang.srt.speculative.eagle_worker_v2 import EAGLEWorkerV2


class PreDraft(EAGLEWorkerV2):
    def forward_batch_generation(self, model_worker_batch: ModelWorkerBatch):
        self.draft_worker.forward_batch_generation(model_worker_batch)
        return super().forward_batch_generation(model_worker_batch)
