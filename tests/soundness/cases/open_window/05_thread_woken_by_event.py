# expect: same
"""A thread holding the batch waits on an event; setting it between the snapshot and the forward decodes the batch."""
import threading

from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.standin import make_batch, record


def _background(held, go, done):
    if go.wait(30):
        held.prepare_for_decode()
    done.set()


def main():
    batch = make_batch()
    worker = TpModelWorker()
    go = threading.Event()
    done = threading.Event()
    thread = threading.Thread(target=_background, args=(batch, go, done))
    thread.start()
    mwb = batch.get_model_worker_batch()
    go.set()
    done.wait(30)
    result = worker.forward_batch_generation(mwb)
    thread.join()
    return result
