# expect: same
"""A property on the batch's class for `seq_lens_cpu`: the old method read it once, and so does the kept snapshot (found by the long profile)."""
from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.standin import make_batch, record

READS = []


def _cpu(self):
    READS.append("seq_lens_cpu")
    return self.__dict__["seq_lens_cpu"]


def main():
    batch = make_batch()
    type(batch).seq_lens_cpu = property(_cpu)
    model_worker_batch = batch.get_model_worker_batch()
    seen = model_worker_batch.seq_lens
    record("reads", list(READS))
    record("seen", seen)
    return TpModelWorker().forward_batch_generation(model_worker_batch)
