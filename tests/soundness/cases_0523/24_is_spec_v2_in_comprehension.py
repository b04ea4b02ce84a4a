# expect: same
"""is_spec_v2 read in a comprehension, on names it binds from a parameter of batches."""

from sglang.srt.managers.schedule_batch import ScheduleBatch
from sglang.standin import make_batch


def count_v2(batches: list[ScheduleBatch]):
    return sum(1 for b in batches if b.is_spec_v2)


def main():
    return count_v2([make_batch(algorithm="EAGLE"), make_batch()])
