# expect: same
"""A tensor-parallel follower's serialisation: rank 0 strips the old object's fields that cannot be
copied (`sampling_info`, `reqs`) from a shallow copy and deep-copies the rest for the followers. A
kept snapshot answers a release's consumers beyond the old fields (`decoding_reqs`, whose requests
cannot be copied) from the batch: its deep copy shares them, as the old object carried none."""
import copy
import threading

from sglang.srt.managers.schedule_batch import Req
from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.standin import make_batch, record

_FIELDS_TO_STRIP = ("sampling_info", "reqs")


def make_follower_batch(b):
    follower = copy.copy(b)
    for name in _FIELDS_TO_STRIP:
        setattr(follower, name, None)
    return copy.deepcopy(follower)


class Rank0:
    def __init__(self):
        self.tp_worker = TpModelWorker()
        self.sent = []

    def run_batch(self, batch):
        model_worker_batch = batch.get_model_worker_batch()
        model_worker_batch.tp_page_table_rows = [[1, 2, 3], [4, 5, 6, 7]]
        self.sent.append(make_follower_batch(model_worker_batch))
        return self.tp_worker.forward_batch_generation(model_worker_batch)


def main():
    running = [Req(5, None, 0, grammar=threading.Lock())]
    batch = make_batch(decoding_reqs=running)
    r = Rank0()
    out = r.run_batch(batch)
    record("followers", len(r.sent))
    return out
