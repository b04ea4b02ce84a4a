# expect: same
"""`type(x).__name__` as a dict key: the snapshot's class name was its own, now it is the batch's; no string
names the old class."""
from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.standin import make_batch, record


def tally(counts, value):
    key = type(value).__name__
    counts[key] = counts.get(key, 0) + 1


def main():
    batch = make_batch()
    worker = TpModelWorker()
    counts = {}
    mwb = batch.get_model_worker_batch()
    tally(counts, batch)
    tally(counts, mwb)
    record("kinds", len(counts))
    return worker.forward_batch_generation(mwb)
