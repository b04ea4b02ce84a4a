# expect: same
"""The imported name `TpModelWorker` is rebound at module level to a subclass that keeps its argument; a local
bound from `TpModelWorker()` looks like SGLang's worker."""
from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.standin import make_batch, record

KEPT = []


class KeepingWorker(TpModelWorker):
    def forward_batch_generation(self, model_worker_batch, *args, **kwargs):
        KEPT.append(model_worker_batch)
        return super().forward_batch_generation(model_worker_batch, *args, **kwargs)


TpModelWorker = KeepingWorker


def main():
    batch = make_batch()
    worker = TpModelWorker()
    mwb = batch.get_model_worker_batch()
    result = worker.forward_batch_generation(mwb)
    batch.prepare_for_decode()
    record("kept mode", KEPT[0].forward_mode)
    return result
