# expect: same
"""An inline snapshot handed straight to the worker; a later argument's comparison runs `__eq__`, which decodes
the batch after the snapshot was taken and before the forward."""
from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.standin import make_batch, record


class Stepper:
    def __init__(self, batch):
        self.held = batch

    def __eq__(self, other):
        self.held.prepare_for_decode()
        return True

    __hash__ = object.__hash__


def main():
    batch = make_batch()
    worker = TpModelWorker()
    stepper = Stepper(batch)
    return worker.forward_batch_generation(batch.get_model_worker_batch(), skip_sample=stepper == 1)
