# expect: same
"""A guarded import whose fallback is a fork's own builder, which changes the batch: the snapshot is kept."""
from sglang.standin import make_batch, record

try:
    from sglang.srt.model_executor.forward_batch_info import ForwardBatch
except ImportError:
    ForwardBatch = None


class _Tracing:
    @classmethod
    def init_new(cls, batch, runner):
        return ("traced", batch.seq_lens)


def build(batch, runner):
    model_worker_batch = batch.get_model_worker_batch()
    return ForwardBatch.init_new(model_worker_batch, runner)


def main():
    global ForwardBatch
    batch = make_batch()
    record("forward", build(batch, None))
    ForwardBatch = _Tracing
    record("traced", build(batch, None))
