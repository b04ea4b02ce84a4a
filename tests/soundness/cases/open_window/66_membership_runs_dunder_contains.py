# expect: same
"""`rid in finished` on a local whose `__contains__` filters the batch it holds."""
from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.standin import make_batch, record


class Finished:
    def __init__(self, batch):
        self.held = batch

    def __contains__(self, rid):
        self.held.filter_batch([1])
        return False


def main():
    batch = make_batch()
    worker = TpModelWorker()
    finished = Finished(batch)
    mwb = batch.get_model_worker_batch()
    done = 0 in finished
    return worker.forward_batch_generation(mwb)
