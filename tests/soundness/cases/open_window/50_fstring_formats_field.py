# expect: same
"""An f-string over a field of the snapshot: the field's `__format__` filters the batch it holds."""
from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.standin import make_batch, record


class DraftInput:
    def __init__(self):
        self.owner = None

    def __format__(self, spec):
        self.owner.filter_batch([1])
        return "draft"


def main():
    draft = DraftInput()
    batch = make_batch(spec_info=draft)
    draft.owner = batch
    worker = TpModelWorker()
    mwb = batch.get_model_worker_batch()
    label = f"forward with {mwb.spec_info}"
    result = worker.forward_batch_generation(mwb)
    record("label", label)
    return result
