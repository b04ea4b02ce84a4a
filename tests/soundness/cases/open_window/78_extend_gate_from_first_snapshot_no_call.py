# expect: same
"""As 40, with nothing unresolved in the second snapshot's window: `if extending:` (a local bound from the first
snapshot, taken in extend) guards a read of the second snapshot's `extend_seq_lens`, None after the decode."""
from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.standin import make_batch, record


def main():
    batch = make_batch()
    worker = TpModelWorker()
    first = batch.get_model_worker_batch()
    extending = first.forward_mode.is_extend()
    worker.forward_batch_generation(first)
    batch.prepare_for_decode()
    second = batch.get_model_worker_batch()
    lens = "unset"
    if extending:
        lens = second.extend_seq_lens
    result = worker.forward_batch_generation(second)
    record("second extend lens", lens)
    return result
