# expect: same
"""A fork's own method named `sample` keeps the snapshot it is handed; it is read after the batch decodes."""
from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.standin import make_batch, record


class Sampler:
    def __init__(self):
        self.history = []

    def sample(self, logits, model_worker_batch):
        self.history.append(model_worker_batch)
        return logits


def main():
    batch = make_batch()
    worker = TpModelWorker()
    sampler = Sampler()
    mwb = batch.get_model_worker_batch()
    logits = worker.forward_batch_generation(mwb)
    sampler.sample(logits, mwb)
    batch.prepare_for_decode()
    record("sampled seq_lens", sampler.history[0].seq_lens)
    record("sampled input_ids", sampler.history[0].input_ids)
    return logits
