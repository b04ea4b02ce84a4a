# expect: same
"""An `__all__` (extended, appended) that never lists the old class: its import goes as unused."""
from sglang.srt.managers.schedule_batch import ModelWorkerBatch
from sglang.standin import make_batch, record

__all__ = ("batch_size",)
__all__ += ("main",)


def batch_size(model_worker_batch: ModelWorkerBatch) -> int:
    return len(model_worker_batch.seq_lens)


def main():
    record("missing exports", [name for name in __all__ if name not in globals()])
    return batch_size(make_batch().get_model_worker_batch())
