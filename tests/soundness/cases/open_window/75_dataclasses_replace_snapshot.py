# expect: reported
"""`dataclasses.replace(mwb, ...)`: the old snapshot was a dataclass; a copy of the batch is not."""
import dataclasses

from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.standin import make_batch, record


def main():
    batch = make_batch()
    worker = TpModelWorker()
    mwb = batch.get_model_worker_batch()
    trimmed = dataclasses.replace(mwb, seq_lens=[1, 1])
    record("trimmed", trimmed.seq_lens)
    return worker.forward_batch_generation(mwb)
