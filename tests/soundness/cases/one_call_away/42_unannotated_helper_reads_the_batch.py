# expect: same unmarked
"""A worker hands the old object to a helper whose parameter the tool does not take for it; the helper
only reads the batch's lengths, so nothing reaches the scheduler's batch (no MWB106)."""
from sglang.srt.managers.schedule_batch import ModelWorkerBatch
from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.standin import make_batch, record, run_batch


def _total(batch):
    return sum(batch.seq_lens)


class Worker(TpModelWorker):
    def forward_batch_generation(self, model_worker_batch: ModelWorkerBatch):
        record("tokens", _total(model_worker_batch))
        return self._forward(model_worker_batch)


def main():
    batch = make_batch()
    run_batch(Worker(), batch)
    return batch.seq_lens
