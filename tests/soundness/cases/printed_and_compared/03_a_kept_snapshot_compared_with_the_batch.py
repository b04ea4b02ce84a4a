# expect: same
"""Fork workers that take either a ScheduleBatch or the old object and guard against being handed
the scheduler's own batch (a `Union[ScheduleBatch, ModelWorkerBatch]` entry; a tracing worker that
keeps the batch it saw). Equality between a kept snapshot and the batch it was taken from, and `in`
over a list of scheduler batches: the old dataclass compared unequal to any other class."""
from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.standin import make_batch, record


class Guard:
    def __init__(self, running):
        self.running = running
        self.worker = TpModelWorker()

    def forward(self, model_worker_batch):
        if model_worker_batch in self.running:
            raise RuntimeError("handed a scheduler batch")
        return self.worker.forward_batch_generation(model_worker_batch)


def main():
    batch = make_batch()
    g = Guard([batch])
    model_worker_batch = batch.get_model_worker_batch()
    batch.seq_lens = [5, 5]
    return g.forward(model_worker_batch)
