# expect: same
"""A fork's own adapter class defines `get_model_worker_batch` (forwarding to the batch it wraps); the call on
the adapter is not SGLang's method."""
from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.standin import make_batch, record


class BatchAdapter:
    def __init__(self, inner):
        self.inner = inner

    def get_model_worker_batch(self):
        record("adapter asked")
        return self.inner.get_model_worker_batch()


def main():
    adapter = BatchAdapter(make_batch())
    worker = TpModelWorker()
    mwb = adapter.get_model_worker_batch()
    adapter.inner.prepare_for_decode()
    return worker.forward_batch_generation(mwb)
