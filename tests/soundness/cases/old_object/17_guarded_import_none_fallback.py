# expect: same unmarked
"""`ForwardBatch` from a guarded import whose fallback is None: the live batch is read."""
from sglang.standin import make_batch, record

try:
    from sglang.srt.model_executor.forward_batch_info import ForwardBatch
except ImportError:
    ForwardBatch = None


def build(batch, runner):
    model_worker_batch = batch.get_model_worker_batch()
    return ForwardBatch.init_new(model_worker_batch, runner)


def main():
    batch = make_batch()
    record("forward", build(batch, None))
