# expect: same unmarked
"""Negative: a snapshot whose fields are read (nothing else in between), then forwarded; the reads are recorded
after the forward."""
from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.standin import make_batch, record


def main():
    batch = make_batch()
    worker = TpModelWorker()
    mwb = batch.get_model_worker_batch()
    seq_lens = mwb.seq_lens
    decoding = mwb.forward_mode.is_decode()
    rows = len(mwb.input_ids)
    result = worker.forward_batch_generation(mwb)
    record("seq_lens", seq_lens)
    record("decoding", decoding)
    record("rows", rows)
    return result
