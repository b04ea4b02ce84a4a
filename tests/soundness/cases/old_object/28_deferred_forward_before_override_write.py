# expect: same
"""A forward deferred through `functools.partial`, then a write of the capture mode on the old object, then the deferred forward and another: both saw the write, and a kept snapshot's write stays where it was (found by the long profile)."""
import functools

from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.srt.model_executor.forward_batch_info import CaptureHiddenMode
from sglang.standin import make_batch, record


def main():
    batch = make_batch()
    worker = TpModelWorker()
    deferred = []
    model_worker_batch = batch.get_model_worker_batch()
    deferred.append(functools.partial(worker.forward_batch_generation, model_worker_batch))
    model_worker_batch.capture_hidden_mode = CaptureHiddenMode.FULL
    record("deferred", [call() for call in deferred])
    return worker.forward_batch_generation(model_worker_batch)
