# expect: same
"""`del obj` drops the last reference to an object whose `__del__` decodes the batch."""
from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.standin import make_batch, record


class DecodeWhenDropped:
    def __init__(self, batch):
        self.held = batch

    def __del__(self):
        self.held.prepare_for_decode()


def main():
    batch = make_batch()
    worker = TpModelWorker()
    pending = DecodeWhenDropped(batch)
    mwb = batch.get_model_worker_batch()
    del pending
    return worker.forward_batch_generation(mwb)
