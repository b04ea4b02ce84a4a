# expect: same
"""`getattr(obj, name, default)` with the snapshot as the default keeps it; the batch then decodes."""
from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.standin import make_batch, record


class Cache:
    pass


def main():
    batch = make_batch()
    worker = TpModelWorker()
    cache = Cache()
    mwb = batch.get_model_worker_batch()
    held = getattr(cache, "pinned", mwb)
    batch.prepare_for_decode()
    record("held mode", held.forward_mode)
    return worker.forward_batch_generation(held)
