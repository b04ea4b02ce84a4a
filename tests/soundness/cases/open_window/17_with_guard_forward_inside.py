# expect: same
"""The guard's `__enter__` filters the batch; the forward runs inside the block."""
from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.standin import make_batch, record


class FilterOnEnter:
    def __init__(self, batch):
        self.held = batch

    def __enter__(self):
        self.held.filter_batch([0])
        return self

    def __exit__(self, *exc):
        return False


def main():
    batch = make_batch()
    worker = TpModelWorker()
    guard = FilterOnEnter(batch)
    mwb = batch.get_model_worker_batch()
    with guard:
        return worker.forward_batch_generation(mwb)
