# expect: reported MWB158
"""is_spec_v2 read in a comprehension over values nothing says are batches."""

from sglang.srt.managers.schedule_batch import ScheduleBatch  # noqa: F401
from sglang.standin import make_batch


def count_v2(batches):
    return sum(1 for b in batches if b.is_spec_v2)


def main():
    return count_v2([make_batch(algorithm="EAGLE"), make_batch()])
