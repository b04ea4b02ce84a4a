# expect: reported
"""Hooks routed by their first parameter's name through `inspect.signature`: the rename of
`model_worker_batch` moves a hook to another route; no string names the old parameter."""
import inspect

from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.standin import make_batch, record


def on_forward(model_worker_batch):
    return ("forward", model_worker_batch.seq_lens)


def on_schedule(batch):
    return ("schedule", batch.seq_lens)


def route(hooks):
    table = {}
    for hook in hooks:
        first = next(iter(inspect.signature(hook).parameters))
        table.setdefault(first, []).append(hook.__name__)
    return table


def main():
    batch = make_batch()
    worker = TpModelWorker()
    mwb = batch.get_model_worker_batch()
    routes = route([on_forward, on_schedule])
    record("routes", routes)
    record("calls", [on_forward(mwb), on_schedule(batch)])
    return worker.forward_batch_generation(mwb)
