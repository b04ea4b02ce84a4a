# expect: reported MWB183
"""A closure made before the snapshot appends a request to the batch's list: the forward derives its per-request lists from the list the snapshot shares (found by the long profile)."""
from sglang.srt.model_executor.forward_batch_info import ForwardBatch
from sglang.standin import Req, make_batch, record


def _make_tick(p):
    def _tick():
        p.reqs.append(Req(9, "y", 2))

    return _tick


def main():
    batch = make_batch()
    tick = _make_tick(batch)
    model_worker_batch = batch.get_model_worker_batch()
    tick()
    record("requests", len(batch.reqs))
    return ForwardBatch.init_new(model_worker_batch, None)
