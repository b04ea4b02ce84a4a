# expect: reported MWB190
# source: overlap worker threads in forks (tp_worker_overlap_thread.py forward_thread_func_ reading
#   `self.input_queue.get()`; one queues `(model_worker_batch, reqs.copy(), sync_event, ...)`).
"""A worker hands the object it is given to a background thread (threading.Thread(args=(...))) that waits
for a launch event; the scheduler sets the event only after it prepared the batch for decode."""
import threading

from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.standin import make_batch, record, run_batch


class ThreadedWorker:
    def __init__(self):
        self.worker = TpModelWorker()
        self.launch = threading.Event()
        self.results = []
        self.thread = None

    def _run(self, model_worker_batch):
        self.launch.wait()
        self.results.append(self.worker.forward_batch_generation(model_worker_batch))

    def forward_batch_generation(self, model_worker_batch):
        self.thread = threading.Thread(target=self._run, args=(model_worker_batch,))
        self.thread.start()
        return None


def main():
    w = ThreadedWorker()
    batch = make_batch()
    run_batch(w, batch)
    batch.prepare_for_decode()
    w.launch.set()
    w.thread.join()
    return w.results
