# expect: same
"""`min([...], key=...)` returns the snapshot; it is read after the batch is filtered."""
from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.standin import make_batch, record


class Ceiling:
    seq_lens = [99, 99, 99]


def main():
    batch = make_batch()
    worker = TpModelWorker()
    mwb = batch.get_model_worker_batch()
    smallest = min([Ceiling(), mwb], key=lambda candidate: len(candidate.seq_lens))
    batch.filter_batch([0])
    record("smallest seq_lens", smallest.seq_lens)
    record("smallest pool", smallest.req_pool_indices)
    return worker.forward_batch_generation(smallest)
