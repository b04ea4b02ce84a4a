# expect: same
"""`mwb.seq_lens + padding`: the list defers to the local's `__radd__`, which decodes the batch it holds."""
from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.standin import make_batch, record


class Padding:
    def __init__(self, batch):
        self.held = batch

    def __radd__(self, other):
        self.held.prepare_for_decode()
        return list(other) + [0]


def main():
    batch = make_batch()
    worker = TpModelWorker()
    padding = Padding(batch)
    mwb = batch.get_model_worker_batch()
    padded = mwb.seq_lens + padding
    result = worker.forward_batch_generation(mwb)
    record("padded", padded)
    return result
