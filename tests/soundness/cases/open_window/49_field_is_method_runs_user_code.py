# expect: same
"""An argument-free `is_*` test on a field of the batch: the field is a fork's speculative input whose
`is_verify()` decodes the batch it holds."""
from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.standin import make_batch, record


class DraftInput:
    def __init__(self):
        self.owner = None

    def is_verify(self):
        self.owner.prepare_for_decode()
        return False


def main():
    draft = DraftInput()
    batch = make_batch(spec_info=draft)
    draft.owner = batch
    worker = TpModelWorker()
    mwb = batch.get_model_worker_batch()
    verifying = batch.spec_info.is_verify()
    return worker.forward_batch_generation(mwb)
