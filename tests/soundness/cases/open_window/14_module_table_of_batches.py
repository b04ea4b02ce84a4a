# expect: same
"""A function with no arguments decodes every batch of a module-level table, which holds the batch."""
from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.standin import make_batch, record

BATCHES = {}


def decode_all():
    for pending in BATCHES.values():
        pending.prepare_for_decode()


def main():
    batch = make_batch()
    worker = TpModelWorker()
    BATCHES["running"] = batch
    mwb = batch.get_model_worker_batch()
    decode_all()
    return worker.forward_batch_generation(mwb)
