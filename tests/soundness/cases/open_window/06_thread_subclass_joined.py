# expect: same
"""A `Thread` subclass built with the batch is started and joined between the snapshot and the forward."""
import threading

from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.standin import make_batch, record


class Decoder(threading.Thread):
    def __init__(self, batch):
        super().__init__()
        self.held = batch

    def run(self):
        self.held.prepare_for_decode()


def main():
    batch = make_batch()
    worker = TpModelWorker()
    decoder = Decoder(batch)
    mwb = batch.get_model_worker_batch()
    decoder.start()
    decoder.join()
    return worker.forward_batch_generation(mwb)
