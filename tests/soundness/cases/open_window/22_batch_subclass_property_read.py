# expect: same
"""Only a field read on the batch sits between the snapshot and the forward, but the batch is a subclass whose
property decodes it."""
from sglang.srt.managers.schedule_batch import ScheduleBatch
from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.standin import make_batch, record


class SteppingBatch(ScheduleBatch):
    @property
    def ready(self):
        self.prepare_for_decode()
        return True


def main():
    batch = SteppingBatch()
    worker = TpModelWorker()
    mwb = batch.get_model_worker_batch()
    ready = batch.ready
    return worker.forward_batch_generation(mwb)
