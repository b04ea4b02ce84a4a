# expect: same
"""In a loop the snapshot is bound at the end of the body and forwarded at the start of the next iteration."""
from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.srt.model_executor.forward_batch_info import ForwardBatch, CaptureHiddenMode
from sglang.standin import make_batch, record


def main():
    batch = make_batch()
    out = []
    for step in range(2):
        if step:
            out.append(ForwardBatch.init_new(mwb, None))
        mwb = batch.get_model_worker_batch()
        batch.prepare_for_decode()
    return out
