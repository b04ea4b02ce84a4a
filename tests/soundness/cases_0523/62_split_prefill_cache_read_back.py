# expect: same MWB185
"""0.5.12's split prefill: the first call keeps the snapshot's CPU lengths on the batch, a later call
reads them back as the old method's override. From 0.5.16 no release consumes `seq_lens_cpu_cache`:
the field is the batch's own, the kept snapshot reads it back, and the migration marks neither as an
override. The contract step still says that 0.5.23's `ScheduleBatch` does not declare the field (a
fork that declares it in its own tree is not told)."""

from sglang.srt.managers.schedule_batch import ScheduleBatch
from sglang.srt.model_executor.forward_batch_info import ForwardBatch
from sglang.srt.model_executor.model_runner import ModelRunner
from sglang.standin import make_batch, record


class SplitWorker:
    def __init__(self):
        self.model_runner = ModelRunner()

    def forward_split(self, batch: ScheduleBatch, first: bool):
        if first:
            model_worker_batch = batch.get_model_worker_batch()
            forward_batch = ForwardBatch.init_new(model_worker_batch, self.model_runner)
            batch.seq_lens_cpu_cache = model_worker_batch.seq_lens_cpu
        else:
            model_worker_batch = batch.get_model_worker_batch(batch.seq_lens_cpu_cache)
            forward_batch = ForwardBatch.init_new(model_worker_batch, self.model_runner)
        record("seq_lens_cpu", forward_batch.observed["seq_lens_cpu"])
        return self.model_runner.forward(forward_batch)


def main():
    worker, batch = SplitWorker(), make_batch()
    worker.forward_split(batch, True)
    batch.seq_lens_cpu = [9, 9]
    return worker.forward_split(batch, False)
