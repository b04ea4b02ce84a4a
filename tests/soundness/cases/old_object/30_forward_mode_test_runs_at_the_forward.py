# expect: reported MWB183
"""The forward mode's `is_decode_or_idle()` writes a list the snapshot shares from its second call on: 0.5.13's `init_new` calls it at the forward, which the old forward never did (found by the long profile)."""
from sglang.srt.model_executor.forward_batch_info import ForwardBatch
from sglang.standin import make_batch, record

_RUNS = []


class _CountingMode:
    def __init__(self, owner):
        self.owner = owner

    def is_decode_or_idle(self):
        _RUNS.append(1)
        if len(_RUNS) >= 2:
            self.owner.seq_lens[0] = 42
        return False

    def is_decode(self):
        return False

    def is_extend(self):
        return True


def main():
    batch = make_batch()
    batch.forward_mode = _CountingMode(batch)
    model_worker_batch = batch.get_model_worker_batch()
    record("seq_lens", model_worker_batch.seq_lens)
    return ForwardBatch.init_new(model_worker_batch, None)
