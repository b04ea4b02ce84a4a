# expect: same unmarked
"""Negative: a snapshot handed to the stand-in worker with keyword arguments."""
from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.standin import make_batch, record


def main():
    batch = make_batch()
    worker = TpModelWorker()
    mwb = batch.get_model_worker_batch()
    return worker.forward_batch_generation(model_worker_batch=mwb, launch_done=None, skip_sample=True)
