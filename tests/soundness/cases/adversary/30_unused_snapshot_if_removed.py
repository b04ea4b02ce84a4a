# expect: same
"""First window statement: an if whose body only binds an unused snapshot (deleted; the emptied if is removed)."""
from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.srt.model_executor.forward_batch_info import ForwardBatch, CaptureHiddenMode
from sglang.standin import make_batch, record


def main():
    batch = make_batch()
    mwb = batch.get_model_worker_batch()
    if batch.return_logprob:
        unused = batch.get_model_worker_batch()
    batch.prepare_for_decode()
    return ForwardBatch.init_new(mwb, None)
