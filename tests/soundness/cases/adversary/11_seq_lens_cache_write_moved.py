# expect: reported MWB183
"""seq_lens_cpu_cache written on the snapshot, then a second forward of the snapshot."""
from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.srt.model_executor.forward_batch_info import ForwardBatch, CaptureHiddenMode
from sglang.standin import make_batch, record


def main():
    batch = make_batch()
    mwb = batch.get_model_worker_batch()
    mwb.seq_lens_cpu_cache = [7, 7]
    f1 = ForwardBatch.init_new(mwb, None)
    f2 = ForwardBatch.init_new(mwb, None)
    return f2.observed
