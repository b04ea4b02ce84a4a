# expect: same
"""`hasattr(mwb, "reqs")`: `reqs` is one of the old object's fields, and the kept snapshot's."""
from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.standin import make_batch, record


def main():
    batch = make_batch()
    worker = TpModelWorker()
    mwb = batch.get_model_worker_batch()
    record("has reqs", hasattr(mwb, "reqs"))
    return worker.forward_batch_generation(mwb)
