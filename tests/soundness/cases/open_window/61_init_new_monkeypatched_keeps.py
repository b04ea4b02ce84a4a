# expect: same
"""`ForwardBatch.init_new` is replaced at module level by one that keeps its argument; the call site names
SGLang's class. The kept value is read after the batch is filtered."""
from sglang.srt.model_executor.forward_batch_info import ForwardBatch
from sglang.standin import make_batch, record

SOURCES = []
_original_init_new = ForwardBatch.init_new.__func__


def init_new(cls, batch, model_runner=None):
    SOURCES.append(batch)
    return _original_init_new(cls, batch, model_runner)


ForwardBatch.init_new = classmethod(init_new)


def main():
    batch = make_batch()
    mwb = batch.get_model_worker_batch()
    forward_batch = ForwardBatch.init_new(mwb, None)
    batch.filter_batch([0])
    record("source seq_lens", SOURCES[0].seq_lens)
    record("source pool", SOURCES[0].req_pool_indices)
    return forward_batch.observed["seq_lens"]
