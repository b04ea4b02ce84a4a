# expect: same
"""`type(x) is type(batch)`: false for the old snapshot, and still false for a copy of another class; only
the live batch itself would answer true."""
from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.standin import make_batch, record


def same_kind(left, right):
    return type(left) is type(right)


def main():
    batch = make_batch()
    worker = TpModelWorker()
    mwb = batch.get_model_worker_batch()
    record("same kind", same_kind(mwb, batch))
    record("same object", mwb is batch)
    return worker.forward_batch_generation(mwb)
