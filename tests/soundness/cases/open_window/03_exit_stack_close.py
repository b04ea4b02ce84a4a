# expect: same
"""An `ExitStack` callback registered with the batch's method runs on `close()` between the snapshot and the forward."""
import contextlib

from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.standin import make_batch, record


def main():
    batch = make_batch()
    worker = TpModelWorker()
    stack = contextlib.ExitStack()
    stack.callback(batch.prepare_for_decode)
    mwb = batch.get_model_worker_batch()
    stack.close()
    return worker.forward_batch_generation(mwb)
