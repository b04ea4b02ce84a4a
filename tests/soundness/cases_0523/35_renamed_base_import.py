# expect: reported MWB185
"""A draft worker built on `BaseDraftWorker`, which 0.5.14 renamed `EagleDraftWorkerBase` with no
alias: the import fails on 0.5.23; only the release's contract knows it."""

from sglang.srt.managers.schedule_batch import ModelWorkerBatch
from sglang.srt.speculative.base_spec_worker import BaseDraftWorker
from sglang.standin import make_batch


class MyDraft(BaseDraftWorker):
    def draft(self, model_worker_batch: ModelWorkerBatch):
        return model_worker_batch.batch_size()


def main():
    return MyDraft().draft(make_batch().get_model_worker_batch())
