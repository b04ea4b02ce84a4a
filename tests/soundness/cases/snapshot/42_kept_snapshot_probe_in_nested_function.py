# expect: reported MWB183
"""The same either-object probe in a closure: `getattr(m, "prefix_lens", None) is not None`
chooses ScheduleBatch's `batch_size()`. On the old object the probe found nothing; the kept
snapshot answers `prefix_lens` (its `extend_prefix_lens`) and then lacks `batch_size`."""
from sglang.srt.managers.schedule_batch import ModelWorkerBatch, ScheduleBatch
from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.srt.model_executor.forward_batch_info import CaptureHiddenMode, ForwardBatch, ForwardMode
from sglang.standin import make_batch, record, run_batch


class Runner:
    def __init__(self):
        self.model_runner = None

    def run(self, batch: ScheduleBatch):
        mwb = batch.get_model_worker_batch()
        batch.prepare_for_decode()

        def size_of(m):
            if getattr(m, "prefix_lens", None) is not None:
                return m.batch_size()
            return len(m.seq_lens)

        record("size", size_of(mwb))
        return ForwardBatch.init_new(mwb, self.model_runner)


def main():
    return Runner().run(make_batch())
