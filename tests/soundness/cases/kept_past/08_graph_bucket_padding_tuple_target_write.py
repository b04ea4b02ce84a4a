# expect: reported MWB106
# source: graph-bucket padding of the worker batch in ports (sgl-project/sglang-jax scheduler passes
#   precompile token/bs paddings to `get_model_worker_batch(...)`; the HPU fork pads
#   decode buckets in `create_hpu_specific_fields`); the two-target assignment is SGLang's own idiom
#   (`ret.topk_p, ret.topk_index = fast_topk(...)` in speculative/eagle_draft_extend_cuda_graph_runner.py).
"""A worker override pads two fields of the object it was handed to a graph bucket with one tuple-target
assignment; the scheduler's batch must keep its unpadded fields."""
from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.standin import make_batch, record, run_batch

TOKEN_BUCKET = 8


def pad_to_bucket(input_ids, out_cache_loc):
    pad = TOKEN_BUCKET - len(input_ids)
    return input_ids + [0] * pad, out_cache_loc + [0] * (TOKEN_BUCKET - len(out_cache_loc))


class BucketedWorker(TpModelWorker):
    def forward_batch_generation(self, model_worker_batch, **kwargs):
        model_worker_batch.input_ids, model_worker_batch.out_cache_loc = pad_to_bucket(
            model_worker_batch.input_ids, model_worker_batch.out_cache_loc
        )
        return super().forward_batch_generation(model_worker_batch, **kwargs)


def main():
    batch = make_batch()
    out = run_batch(BucketedWorker(), batch)
    record("scheduler ids", batch.input_ids)
    return out
