# expect: reported MWB183
"""A kept snapshot handed to a method of the same class (not a module function) that serves
either object: `hasattr(m, "extend_lens")` picks ScheduleBatch's `batch_size()`, else the old
object's `len(m.seq_lens)`. The old object lacked `extend_lens`; the snapshot answers it (a
consumer read) but has no `batch_size`. README reports such reflection only in the snapshot's
function or a module function handed it."""
from sglang.srt.managers.schedule_batch import ModelWorkerBatch, ScheduleBatch
from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.srt.model_executor.forward_batch_info import CaptureHiddenMode, ForwardBatch, ForwardMode
from sglang.standin import make_batch, record, run_batch


class Runner:
    def __init__(self):
        self.model_runner = None

    def _size(self, m):
        return m.batch_size() if hasattr(m, "extend_lens") else len(m.seq_lens)

    def run(self, batch: ScheduleBatch):
        mwb = batch.get_model_worker_batch()
        batch.prepare_for_decode()
        record("size", self._size(mwb))
        return ForwardBatch.init_new(mwb, self.model_runner)


def main():
    return Runner().run(make_batch())
