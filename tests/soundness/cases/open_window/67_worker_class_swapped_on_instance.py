# expect: same
"""A local bound only to `TpModelWorker()`, whose `__class__` was swapped (before the snapshot) for a subclass
that keeps its argument; the kept value is read after the batch decodes."""
from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.standin import make_batch, record


class KeepingWorker(TpModelWorker):
    kept = []

    def forward_batch_generation(self, model_worker_batch, *args, **kwargs):
        KeepingWorker.kept.append(model_worker_batch)
        return super().forward_batch_generation(model_worker_batch, *args, **kwargs)


def main():
    batch = make_batch()
    worker = TpModelWorker()
    worker.__class__ = KeepingWorker
    mwb = batch.get_model_worker_batch()
    result = worker.forward_batch_generation(mwb)
    batch.prepare_for_decode()
    record("kept mode", KeepingWorker.kept[0].forward_mode)
    return result
