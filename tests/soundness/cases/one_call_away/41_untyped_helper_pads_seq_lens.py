# expect: reported MWB106
# source: HPU fork managers/tp_worker_overlap_thread.py: `TpModelWorkerClientSingelThread.
#   forward_batch_generation(self, model_worker_batch, ...)` calls the module helper
#   `create_hpu_specific_fields(ret: ModelWorkerBatch, model_runner)` which writes fields on `ret` (page_size,
#   block tables, ...) for decode buckets. Here the helper is untyped and pads the decode lengths to a bucket.
"""A wrapper worker hands the object it was given to an untyped module helper that pads it in place for a
graph bucket (decode only); the scheduler's batch must keep its own lengths."""
from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.standin import make_batch, record, run_batch

DECODE_BATCH_BUCKET = 4


def create_hpu_specific_fields(ret, page_size):
    ret.page_size = page_size
    if ret.forward_mode.is_decode():
        pad = DECODE_BATCH_BUCKET - len(ret.seq_lens)
        ret.seq_lens = ret.seq_lens + [1] * pad
    return ret


class TpModelWorkerClientSingleThread:
    def __init__(self):
        self.worker = TpModelWorker()

    def forward_batch_generation(self, model_worker_batch, launch_done=None, skip_sample=False):
        create_hpu_specific_fields(model_worker_batch, 16)
        return self.worker.forward_batch_generation(model_worker_batch, launch_done, skip_sample)


def main():
    batch = make_batch()
    batch.prepare_for_decode()
    out = run_batch(TpModelWorkerClientSingleThread(), batch)
    record("scheduler lens", batch.seq_lens)
    return out
