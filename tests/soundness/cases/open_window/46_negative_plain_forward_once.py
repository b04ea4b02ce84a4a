# expect: same unmarked
"""Negative: a plain snapshot forwarded once, nothing in between."""
from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.standin import make_batch, record


def main():
    batch = make_batch()
    worker = TpModelWorker()
    mwb = batch.get_model_worker_batch()
    return worker.forward_batch_generation(mwb)
