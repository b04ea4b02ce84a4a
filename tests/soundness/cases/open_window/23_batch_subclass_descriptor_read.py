# expect: same
"""A descriptor on a batch subclass: reading `batch.pending` in between filters the batch."""
from sglang.srt.managers.schedule_batch import ScheduleBatch
from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.standin import make_batch, record


class Pending:
    def __get__(self, owner_instance, owner=None):
        if owner_instance is None:
            return self
        owner_instance.filter_batch([1])
        return len(owner_instance.reqs)


class TrimmingBatch(ScheduleBatch):
    pending = Pending()


def main():
    batch = TrimmingBatch()
    worker = TpModelWorker()
    mwb = batch.get_model_worker_batch()
    if batch.pending:
        pass
    return worker.forward_batch_generation(mwb)
