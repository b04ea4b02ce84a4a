# expect: same
"""Negative of 01: the kept bound method belongs to another batch; the snapshot's batch never changes."""
from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.standin import make_batch, record


def main():
    batch = make_batch()
    other = make_batch(seq_lens=[5, 6])
    worker = TpModelWorker()
    step = other.prepare_for_decode
    mwb = batch.get_model_worker_batch()
    step()
    record("other", other.seq_lens)
    return worker.forward_batch_generation(mwb)
