# expect: same
"""Extreme: a profile hook installed before the snapshot decodes the batch on the next C call (`len`) in between;
nothing between the snapshot and the forward but `n = len(batch.reqs)`."""
import sys

from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.standin import make_batch, record


def main():
    batch = make_batch()
    worker = TpModelWorker()
    fired = []

    def hook(frame, event, arg):
        if event == "c_call" and arg is len and not fired:
            fired.append(True)
            batch.prepare_for_decode()

    sys.setprofile(hook)
    try:
        mwb = batch.get_model_worker_batch()
        n = len(batch.reqs)
        result = worker.forward_batch_generation(mwb)
    finally:
        sys.setprofile(None)
    return result
