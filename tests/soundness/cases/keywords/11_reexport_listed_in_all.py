# expect: reported MWB146
"""`ModelWorkerBatch` re-exported under an alias listed in `__all__`: consumers import it from here."""
from sglang.srt.managers.schedule_batch import ModelWorkerBatch as MWB
from sglang.standin import make_batch, record

__all__ = ["MWB", "batch_size", "main"]


def batch_size(model_worker_batch: MWB) -> int:
    return len(model_worker_batch.seq_lens)


def main():
    record("missing exports", [name for name in __all__ if name not in globals()])
    return batch_size(make_batch().get_model_worker_batch())
