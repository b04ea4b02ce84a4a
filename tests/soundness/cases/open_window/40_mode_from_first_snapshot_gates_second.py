# expect: same
"""A mode local bound from the first snapshot (extend) gates a read of a second snapshot taken after a decode:
the second's `extend_seq_lens` was None."""
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
    if extending:
        record("second extend lens", second.extend_seq_lens)
        record("second prefix lens", second.extend_prefix_lens)
    return worker.forward_batch_generation(second)
