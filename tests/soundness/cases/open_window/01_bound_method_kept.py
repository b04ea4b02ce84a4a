# expect: same
"""A bound method of the batch, taken before the snapshot, is called between the snapshot and the forward."""
from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.standin import make_batch, record


def main():
    batch = make_batch()
    worker = TpModelWorker()
    step = batch.prepare_for_decode
    mwb = batch.get_model_worker_batch()
    step()
    return worker.forward_batch_generation(mwb)
