# expect: same
"""While loop: the previous iteration's snapshot is handed to the worker after the batch was decoded."""
from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.srt.model_executor.forward_batch_info import ForwardBatch, CaptureHiddenMode
from sglang.standin import make_batch, record


def main():
    batch = make_batch()
    worker = TpModelWorker()
    results = []
    step = 0
    while step < 2:
        if step:
            results.append(worker.forward_batch_generation(mwb))
        mwb = batch.get_model_worker_batch()
        ForwardBatch.init_new(mwb, None)
        batch.prepare_for_decode()
        step += 1
    return results
