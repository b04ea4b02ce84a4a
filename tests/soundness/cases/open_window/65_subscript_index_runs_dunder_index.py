# expect: same
"""`mwb.seq_lens[position]`: the index object's `__index__` decodes the batch it holds."""
from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.standin import make_batch, record


class Position:
    def __init__(self, batch):
        self.held = batch

    def __index__(self):
        self.held.prepare_for_decode()
        return 0


def main():
    batch = make_batch()
    worker = TpModelWorker()
    position = Position(batch)
    mwb = batch.get_model_worker_batch()
    first_len = mwb.seq_lens[position]
    result = worker.forward_batch_generation(mwb)
    record("first len", first_len)
    return result
