# expect: same
"""The first window statement is a function-local import of the old class, which the imports rewrite removes."""
from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.srt.model_executor.forward_batch_info import ForwardBatch, CaptureHiddenMode
from sglang.standin import make_batch, record


def main():
    batch = make_batch()
    mwb = batch.get_model_worker_batch()
    from sglang.srt.managers.schedule_batch import ModelWorkerBatch
    batch.prepare_for_decode()
    return ForwardBatch.init_new(mwb, None)
