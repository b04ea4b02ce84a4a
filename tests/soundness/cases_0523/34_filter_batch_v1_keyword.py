# expect: reported MWB185
"""filter_batch(v1_spec_info_filtered=...), a keyword 0.5.14 removed with the v1 workers: only the
release's contract knows it."""

from sglang.srt.managers.schedule_batch import ModelWorkerBatch, ScheduleBatch  # noqa: F401
from sglang.standin import make_batch


def drop_first(batch: ScheduleBatch):
    batch.filter_batch(keep_indices=[1], v1_spec_info_filtered=True)
    return batch.batch_size()


def main():
    return drop_first(make_batch())
