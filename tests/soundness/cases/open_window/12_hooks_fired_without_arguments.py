# expect: same
"""A hook registered earlier with the batch's method is fired by a call that takes no arguments."""
from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.standin import make_batch, record

HOOKS = []


def on_step(hook):
    HOOKS.append(hook)
    return hook


def fire():
    for hook in HOOKS:
        hook()


def main():
    batch = make_batch()
    worker = TpModelWorker()
    on_step(batch.prepare_for_decode)
    mwb = batch.get_model_worker_batch()
    fire()
    return worker.forward_batch_generation(mwb)
