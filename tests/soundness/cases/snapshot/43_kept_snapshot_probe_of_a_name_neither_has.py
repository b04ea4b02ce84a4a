# expect: same MWB120
"""A kept snapshot handed to a method of the same class that serves either object by a probe of a
public name neither the old object nor the snapshot has (`get_model_worker_batch`): both answer it
False, so the branch is the old one (no reflection hazard)."""
from sglang.srt.managers.schedule_batch import ModelWorkerBatch, ScheduleBatch
from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.srt.model_executor.forward_batch_info import CaptureHiddenMode, ForwardBatch, ForwardMode
from sglang.standin import make_batch, record, run_batch


class Runner:
    def __init__(self):
        self.model_runner = None

    def _size(self, m):
        return len(m.get_model_worker_batch().seq_lens) if hasattr(m, "get_model_worker_batch") else len(m.seq_lens)

    def run(self, batch: ScheduleBatch):
        mwb = batch.get_model_worker_batch()
        batch.prepare_for_decode()
        record("size", self._size(mwb))
        return ForwardBatch.init_new(mwb, self.model_runner)


def main():
    return Runner().run(make_batch())
