# expect: same
"""a is bound twice (unproven at its binding); its marker moves to the next statement: b's binding, deleted too."""
from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.srt.model_executor.forward_batch_info import ForwardBatch, CaptureHiddenMode
from sglang.standin import make_batch, record


def main():
    batch = make_batch()
    a = batch.get_model_worker_batch()
    a = batch.get_model_worker_batch()
    b = batch.get_model_worker_batch()
    fb = ForwardBatch.init_new(b, None)
    batch.prepare_for_decode()
    return ForwardBatch.init_new(a, None)
