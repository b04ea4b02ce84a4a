# expect: reported
"""`mwb.__class__.__name__` is a plain attribute read on the snapshot: it named the old class."""
from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.standin import make_batch, record


def main():
    batch = make_batch()
    worker = TpModelWorker()
    mwb = batch.get_model_worker_batch()
    kind = mwb.__class__.__name__
    result = worker.forward_batch_generation(mwb)
    record("kind", kind)
    return result
