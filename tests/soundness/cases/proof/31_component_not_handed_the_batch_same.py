# expect: same
"""A component of `self` that never saw the batch runs between the snapshot and the forward."""
from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.standin import make_batch, record


class Streams:
    def wait(self):
        record("waited")


class Worker:
    def __init__(self):
        self.streams = Streams()
        self.target = TpModelWorker()

    def run(self, batch):
        mwb = batch.get_model_worker_batch()
        self.streams.wait()
        return self.target.forward_batch_generation(mwb)


def main():
    return Worker().run(make_batch())
