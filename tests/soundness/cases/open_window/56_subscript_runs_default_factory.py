# expect: same
"""`counters["steps"]` on a defaultdict whose factory decodes the batch."""
import collections

from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.standin import make_batch, record


def main():
    batch = make_batch()
    worker = TpModelWorker()

    def first_step():
        batch.prepare_for_decode()
        return 0

    counters = collections.defaultdict(first_step)
    mwb = batch.get_model_worker_batch()
    steps = counters["steps"]
    return worker.forward_batch_generation(mwb)
