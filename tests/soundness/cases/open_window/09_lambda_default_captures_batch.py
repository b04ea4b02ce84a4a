# expect: same
"""A lambda made before the snapshot holds the batch as a default; calling it filters the batch before the forward."""
from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.standin import make_batch, record


def main():
    batch = make_batch()
    worker = TpModelWorker()
    drop_first = lambda held=batch: held.filter_batch([1])
    mwb = batch.get_model_worker_batch()
    drop_first()
    return worker.forward_batch_generation(mwb)
