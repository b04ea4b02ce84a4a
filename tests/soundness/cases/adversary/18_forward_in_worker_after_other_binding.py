# expect: same
"""Worker forward of a, after b's (proven) site; the batch decoded in between."""
from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.srt.model_executor.forward_batch_info import ForwardBatch, CaptureHiddenMode
from sglang.standin import make_batch, record


def main():
    batch = make_batch()
    worker = TpModelWorker()
    a = batch.get_model_worker_batch()
    b = batch.get_model_worker_batch()
    ForwardBatch.init_new(b, None)
    batch.prepare_for_decode()
    return worker.forward_batch_generation(a)
