# expect: same
"""A fork's own `forward_batch_generation` stores what it is handed; the batch decodes, then the stored value is read."""
from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.standin import make_batch, record


class RecordingWorker:
    def __init__(self):
        self.target = TpModelWorker()
        self.last = None

    def forward_batch_generation(self, model_worker_batch):
        self.last = model_worker_batch
        return self.target.forward_batch_generation(model_worker_batch)


def main():
    batch = make_batch()
    worker = RecordingWorker()
    mwb = batch.get_model_worker_batch()
    result = worker.forward_batch_generation(mwb)
    batch.prepare_for_decode()
    record("stored seq_lens", worker.last.seq_lens)
    record("stored mode", worker.last.forward_mode)
    return result
