# expect: reported
"""`hasattr(mwb, "reqs")`: the old snapshot had no `reqs`; a copy of the batch has."""
from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.standin import make_batch, record


def main():
    batch = make_batch()
    worker = TpModelWorker()
    mwb = batch.get_model_worker_batch()
    record("has reqs", hasattr(mwb, "reqs"))
    return worker.forward_batch_generation(mwb)
