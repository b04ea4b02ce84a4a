# expect: reported MWB190
# source: forks' managers/tp_worker_overlap_thread.py TpModelWorkerClient.forward_batch_generation
#   (an HPU fork, an NPU fork, sgl-project/sglang-jax):
#   `self.input_queue.put((model_worker_batch, self.future_token_ids_ct))`, a forward thread runs it later.
"""An overlap client queues the object it is handed and returns a placeholder; its forward thread runs
the queued item only after the scheduler has prepared the batch for the next (decode) step."""
import collections

from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.standin import make_batch, record, run_batch


class TpModelWorkerClient:
    def __init__(self):
        self.worker = TpModelWorker()
        self.input_queue = collections.deque()
        self.future_token_ids_ct = 0

    def forward_batch_generation(self, model_worker_batch):
        self.input_queue.append((model_worker_batch, self.future_token_ids_ct))
        bs = len(model_worker_batch.seq_lens)
        self.future_token_ids_ct += bs
        return ("future", bs)

    def forward_thread_step(self):
        model_worker_batch, ct = self.input_queue.popleft()
        record("thread ct", ct)
        return self.worker.forward_batch_generation(model_worker_batch)


def main():
    client = TpModelWorkerClient()
    batch = make_batch()
    record("placeholder", run_batch(client, batch))
    batch.prepare_for_decode()  # the scheduler moves on before the forward thread runs
    return client.forward_thread_step()
