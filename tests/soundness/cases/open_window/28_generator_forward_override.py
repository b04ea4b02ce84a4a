# expect: same
"""A worker subclass whose `forward_batch_generation` is a generator: the forward runs when iterated, after the
batch decodes."""
from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.standin import make_batch, record


class StreamingWorker(TpModelWorker):
    def forward_batch_generation(self, model_worker_batch, *args, **kwargs):
        record("stream started")
        yield super().forward_batch_generation(model_worker_batch, *args, **kwargs)


def main():
    batch = make_batch()
    worker = StreamingWorker()
    mwb = batch.get_model_worker_batch()
    outputs = worker.forward_batch_generation(mwb)
    batch.prepare_for_decode()
    return list(outputs)
