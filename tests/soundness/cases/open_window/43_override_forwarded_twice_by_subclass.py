# expect: same
"""An override snapshot handed to a worker subclass whose forward calls `super()` twice."""
from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.standin import make_batch, record


class RetryingWorker(TpModelWorker):
    def forward_batch_generation(self, model_worker_batch, *args, **kwargs):
        super().forward_batch_generation(model_worker_batch, skip_sample=True)
        return super().forward_batch_generation(model_worker_batch, *args, **kwargs)


def main():
    batch = make_batch()
    worker = RetryingWorker()
    mwb = batch.get_model_worker_batch(seq_lens_cpu_cache=[30, 40])
    return worker.forward_batch_generation(mwb)
