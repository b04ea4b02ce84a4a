# expect: same
"""No subclass: a property is added to SGLang's batch class at module level; reading it on the batch in between
decodes the batch."""
from sglang.srt.managers.schedule_batch import ScheduleBatch
from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.standin import make_batch, record


def _pending(self):
    self.prepare_for_decode()
    return len(self.reqs)


ScheduleBatch.pending = property(_pending)


def main():
    batch = make_batch()
    worker = TpModelWorker()
    mwb = batch.get_model_worker_batch()
    pending = batch.pending
    return worker.forward_batch_generation(mwb)
