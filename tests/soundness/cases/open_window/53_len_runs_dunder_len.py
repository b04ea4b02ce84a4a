# expect: same
"""`len(queue)` of a local whose `__len__` filters the batch it holds."""
from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.standin import make_batch, record


class Queue:
    def __init__(self, batch):
        self.held = batch

    def __len__(self):
        self.held.filter_batch([0])
        return len(self.held.reqs)


def main():
    batch = make_batch()
    worker = TpModelWorker()
    queue = Queue(batch)
    mwb = batch.get_model_worker_batch()
    waiting = len(queue)
    return worker.forward_batch_generation(mwb)
