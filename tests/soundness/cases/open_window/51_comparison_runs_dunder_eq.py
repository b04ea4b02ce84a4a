# expect: same
"""A plain comparison of a local: its `__eq__` decodes the batch it holds."""
from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.standin import make_batch, record


class Stepper:
    def __init__(self, batch):
        self.held = batch

    def __eq__(self, other):
        self.held.prepare_for_decode()
        return False

    __hash__ = object.__hash__


def main():
    batch = make_batch()
    worker = TpModelWorker()
    stepper = Stepper(batch)
    mwb = batch.get_model_worker_batch()
    done = stepper == 1
    return worker.forward_batch_generation(mwb)
