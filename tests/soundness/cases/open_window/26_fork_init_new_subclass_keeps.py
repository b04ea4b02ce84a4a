# expect: same
"""A fork's `ForwardBatch` subclass overrides `init_new` and keeps the batch it was built from."""
from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.srt.model_executor.forward_batch_info import ForwardBatch
from sglang.standin import make_batch, record


class TracingForwardBatch(ForwardBatch):
    sources = []

    @classmethod
    def init_new(cls, batch, model_runner=None):
        cls.sources.append(batch)
        return super().init_new(batch, model_runner)


def main():
    batch = make_batch()
    mwb = batch.get_model_worker_batch()
    forward_batch = TracingForwardBatch.init_new(mwb, None)
    batch.prepare_for_decode()
    record("source seq_lens", TracingForwardBatch.sources[0].seq_lens)
    record("source mode", TracingForwardBatch.sources[0].forward_mode)
    return forward_batch.observed["seq_lens"]
