# expect: same
"""The forward mode's `is_decode_or_idle()` prepares decode, with the forward-batch builder alone in the window: `init_new` would call it at the forward, so the snapshot is kept (found by the long profile)."""
from sglang.srt.model_executor.forward_batch_info import ForwardBatch
from sglang.standin import make_batch, record


class _PreparingMode:
    def __init__(self, owner):
        self.owner = owner

    def is_decode_or_idle(self):
        self.owner.prepare_for_decode()
        return False

    def is_decode(self):
        return False

    def is_extend(self):
        return True


def main():
    batch = make_batch()
    batch.forward_mode = _PreparingMode(batch)
    model_worker_batch = batch.get_model_worker_batch()
    ForwardBatch.init_new(model_worker_batch, None)
    record("seq_lens", batch.seq_lens)
