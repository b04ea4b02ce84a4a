# expect: same
"""`with guard:` on a guard built earlier with the batch: its `__exit__` decodes the batch before the forward."""
from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.standin import make_batch, record


class DecodeOnExit:
    def __init__(self, batch):
        self.held = batch

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.held.prepare_for_decode()
        return False


def main():
    batch = make_batch()
    worker = TpModelWorker()
    guard = DecodeOnExit(batch)
    mwb = batch.get_model_worker_batch()
    with guard:
        record("inside")
    return worker.forward_batch_generation(mwb)
