# expect: same
"""A suspended generator holding the batch has a `finally` that decodes it; rebinding its only name in between
closes it."""
from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.standin import make_batch, record


def lease(held):
    try:
        yield held
    finally:
        held.prepare_for_decode()


def main():
    batch = make_batch()
    worker = TpModelWorker()
    leased = lease(batch)
    next(leased)
    mwb = batch.get_model_worker_batch()
    leased = None
    return worker.forward_batch_generation(mwb)
