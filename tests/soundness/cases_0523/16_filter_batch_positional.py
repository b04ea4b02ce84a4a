# expect: same
"""A positional filter_batch call needs no keyword rename."""

from sglang.srt.managers.schedule_batch import ScheduleBatch
from sglang.standin import make_batch


def drop_first(batch: ScheduleBatch):
    batch.filter_batch(None, [1])
    return batch.seq_lens


def main():
    return drop_first(make_batch())
