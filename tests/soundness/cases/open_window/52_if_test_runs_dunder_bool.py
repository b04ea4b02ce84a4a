# expect: same
"""`if pending:` on a local whose `__bool__` decodes the batch it holds."""
from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.standin import make_batch, record


class Pending:
    def __init__(self, batch):
        self.held = batch

    def __bool__(self):
        self.held.prepare_for_decode()
        return True


def main():
    batch = make_batch()
    worker = TpModelWorker()
    pending = Pending(batch)
    mwb = batch.get_model_worker_batch()
    if pending:
        pass
    return worker.forward_batch_generation(mwb)
