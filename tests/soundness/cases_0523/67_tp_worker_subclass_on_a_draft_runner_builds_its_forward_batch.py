# expect: same MWB159
"""A TpModelWorker subclass that builds its own forward batch, used as the plugin's draft worker.

Its `forward_batch_generation` gains `capture_hidden_mode=None` and hands it to `init_new`; where the
caller gives none, the old object's mode is passed (`worker_batch_capture_mode(batch, capture_hidden_mode)`),
which the old `init_new` read (FULL, from the batch's request for hidden states), where 0.5.17's
ignores that request on a draft runner."""

from sglang.srt.managers.schedule_batch import ModelWorkerBatch
from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.srt.model_executor.forward_batch_info import ForwardBatch
from sglang.srt.model_executor.model_runner import ModelRunner
from sglang.standin import make_batch, record


class DraftRunner(ModelRunner):
    is_draft_worker = True


class DraftTp(TpModelWorker):
    def forward_batch_generation(self, model_worker_batch: ModelWorkerBatch, forward_batch=None):
        forward_batch = ForwardBatch.init_new(model_worker_batch, self.model_runner)
        record("mode", forward_batch.observed["capture_hidden_mode"])
        return self.model_runner.forward(forward_batch)


class Drafter:
    def __init__(self, draft_worker):
        self.draft_worker = draft_worker

    def step(self, batch):
        return self.draft_worker.forward_batch_generation(batch.get_model_worker_batch())


def main():
    w = DraftTp()
    w.model_runner = DraftRunner()
    return Drafter(w).step(make_batch(return_hidden_states=True))
