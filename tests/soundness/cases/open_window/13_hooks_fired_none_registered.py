# expect: same
"""Negative of 12: the hooks fired in between hold only a recorder, never the batch."""
from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.standin import make_batch, record

HOOKS = []


def fire():
    for hook in HOOKS:
        hook()


def main():
    batch = make_batch()
    worker = TpModelWorker()
    HOOKS.append(lambda: record("hook"))
    mwb = batch.get_model_worker_batch()
    fire()
    return worker.forward_batch_generation(mwb)
