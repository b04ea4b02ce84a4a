# expect: same
"""`decoding = first.forward_mode.is_decode_or_idle()` then `if not decoding:` reads the second snapshot's
extend fields, which a decode made None."""
from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.standin import make_batch, record


def main():
    batch = make_batch()
    worker = TpModelWorker()
    first = batch.get_model_worker_batch()
    decoding = first.forward_mode.is_decode_or_idle()
    worker.forward_batch_generation(first)
    batch.prepare_for_decode()
    second = batch.get_model_worker_batch()
    if not decoding:
        lens = second.extend_seq_lens
    else:
        lens = "decode"
    result = worker.forward_batch_generation(second)
    record("lens", lens)
    return result
