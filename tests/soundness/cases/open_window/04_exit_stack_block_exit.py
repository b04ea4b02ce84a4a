# expect: same
"""The snapshot is taken inside an `ExitStack` block; leaving the block filters the batch before the forward."""
import contextlib

from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.standin import make_batch, record


def main():
    batch = make_batch()
    worker = TpModelWorker()
    with contextlib.ExitStack() as stack:
        stack.callback(batch.filter_batch, [1])
        mwb = batch.get_model_worker_batch()
    record("left", len(batch.reqs))
    return worker.forward_batch_generation(mwb)
