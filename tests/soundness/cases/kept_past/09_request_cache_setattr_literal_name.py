# expect: reported MWB106
# source: a fork's ModelRunner.read_from_request_cache_overlap, called from the
#   overlap client's forward_batch_generation: it builds a tensor from per-request caches and
#   stores it with `setattr(model_worker_batch, f"request_cache_input", ret_tensor_dict)`. Here the name is a plain
#   string literal and the field written is one the forward reads.
"""A helper method rewrites a field of the object it was handed with setattr and a literal name."""
from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.standin import make_batch, record, run_batch


class CachedInputWorker(TpModelWorker):
    def read_from_request_cache(self, model_worker_batch):
        cached = [t % 5 for t in model_worker_batch.input_ids]
        setattr(model_worker_batch, "input_ids", cached)
        return cached

    def forward_batch_generation(self, model_worker_batch, **kwargs):
        self.read_from_request_cache(model_worker_batch)
        return super().forward_batch_generation(model_worker_batch, **kwargs)


def main():
    batch = make_batch()
    out = run_batch(CachedInputWorker(), batch)
    record("scheduler ids", batch.input_ids)
    return out
