# expect: same
"""An override snapshot handed once to a wrapper worker whose forward runs its inner SGLang worker twice."""
from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.standin import make_batch, record


class TwiceWorker:
    def __init__(self):
        self.inner = TpModelWorker()

    def forward_batch_generation(self, model_worker_batch):
        self.inner.forward_batch_generation(model_worker_batch)
        return self.inner.forward_batch_generation(model_worker_batch)


def main():
    batch = make_batch()
    mwb = batch.get_model_worker_batch(seq_lens_cpu_cache=[30, 40])
    return TwiceWorker().forward_batch_generation(mwb)
