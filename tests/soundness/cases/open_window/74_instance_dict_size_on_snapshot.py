# expect: same
"""`len(mwb.__dict__)`: the kept snapshot holds the old object's fields, and only those."""
from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.standin import make_batch, record


def main():
    batch = make_batch()
    worker = TpModelWorker()
    mwb = batch.get_model_worker_batch()
    field_count = len(mwb.__dict__)
    result = worker.forward_batch_generation(mwb)
    record("fields", field_count)
    return result
