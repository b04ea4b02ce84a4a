# expect: same
"""A property setter on an object that holds the batch decodes it when assigned."""
from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.standin import make_batch, record


class Cursor:
    def __init__(self, batch):
        self._batch = batch
        self._step = 0

    @property
    def step(self):
        return self._step

    @step.setter
    def step(self, value):
        self._step = value
        self._batch.prepare_for_decode()


def main():
    batch = make_batch()
    worker = TpModelWorker()
    cursor = Cursor(batch)
    mwb = batch.get_model_worker_batch()
    cursor.step = 1
    return worker.forward_batch_generation(mwb)
