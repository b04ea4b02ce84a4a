# expect: same unmarked
# source: LoRA accounting in forks (sgl-project/sglang-jax lora manager reads `set(model_worker_batch.lora_ids)`),
#   combined with the `batch = model_worker_batch` alias that spec-v2 forks put at the
#   top of forward_batch_generation, as a DominoWorkerV2 does).
"""A worker counts adapter usage from the old object's lora_ids, read through a local alias."""
import collections

from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.standin import make_batch, record, run_batch


class LoraAccountingWorker(TpModelWorker):
    def __init__(self):
        super().__init__()
        self.adapter_steps = collections.Counter()

    def forward_batch_generation(self, model_worker_batch, **kwargs):
        wb = model_worker_batch
        self.adapter_steps.update(uid or "base" for uid in wb.lora_ids)
        return super().forward_batch_generation(model_worker_batch, **kwargs)


def main():
    worker = LoraAccountingWorker()
    out = run_batch(worker, make_batch())
    record("adapter steps", dict(worker.adapter_steps))
    return out
