# expect: same
"""Negative of 05: the woken thread changes only its own state; the forward sees the batch as snapshotted."""
import threading

from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.standin import make_batch, record


def main():
    batch = make_batch()
    worker = TpModelWorker()
    go = threading.Event()
    done = threading.Event()
    seen = []

    def background():
        if go.wait(30):
            seen.append("woken")
        done.set()

    thread = threading.Thread(target=background)
    thread.start()
    mwb = batch.get_model_worker_batch()
    go.set()
    done.wait(30)
    result = worker.forward_batch_generation(mwb)
    thread.join()
    record("seen", seen)
    return result
