# expect: same
"""Reading an attribute of a holder runs a descriptor's `__get__`, which decodes the batch it holds."""
from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.standin import make_batch, record


class Advancing:
    def __get__(self, owner_instance, owner=None):
        if owner_instance is None:
            return self
        owner_instance.held.prepare_for_decode()
        return len(owner_instance.held.seq_lens)


class Holder:
    steps = Advancing()

    def __init__(self, batch):
        self.held = batch


def main():
    batch = make_batch()
    worker = TpModelWorker()
    holder = Holder(batch)
    mwb = batch.get_model_worker_batch()
    count = holder.steps
    record("count", count)
    return worker.forward_batch_generation(mwb)
