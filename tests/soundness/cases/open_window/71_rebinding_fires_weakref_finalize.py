# expect: same
"""No `__del__` anywhere: `weakref.finalize` registered the batch's method on a token; rebinding the token's only
name in between fires it."""
import weakref

from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.standin import make_batch, record


class Token:
    pass


def main():
    batch = make_batch()
    worker = TpModelWorker()
    token = Token()
    weakref.finalize(token, batch.prepare_for_decode)
    mwb = batch.get_model_worker_batch()
    token = None
    return worker.forward_batch_generation(mwb)
