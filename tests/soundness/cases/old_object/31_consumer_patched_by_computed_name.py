# expect: same
"""`init_new` patched by `setattr` on the forward-batch class with a computed name: the window is not proven (found by the long profile)."""
from sglang.srt.model_executor.forward_batch_info import ForwardBatch
from sglang.standin import make_batch, record


def _tracing(original, owner):
    def traced(cls, batch, model_runner=None):
        owner.seq_lens = [n + 10 for n in owner.seq_lens]
        return original(batch, model_runner)

    return classmethod(traced)


def main():
    batch = make_batch()
    setattr(ForwardBatch, "_".join(["init", "new"]), _tracing(ForwardBatch.init_new, batch))
    model_worker_batch = batch.get_model_worker_batch()
    ForwardBatch.init_new(model_worker_batch, None)
    record("seq_lens", batch.seq_lens)
