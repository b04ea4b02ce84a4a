# expect: same
"""`max(a, b, key=...)` returns the snapshot itself; it is forwarded after the batch decodes."""
from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.standin import make_batch, record


class Floor:
    seq_lens = [0]


def main():
    batch = make_batch()
    worker = TpModelWorker()
    mwb = batch.get_model_worker_batch()
    chosen = max(mwb, Floor(), key=lambda candidate: sum(candidate.seq_lens))
    batch.prepare_for_decode()
    return worker.forward_batch_generation(chosen)
