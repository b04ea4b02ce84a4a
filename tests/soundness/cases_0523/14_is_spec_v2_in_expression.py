# expect: same
"""is_spec_v2 inside a comparison and a boolean expression: the replacement keeps precedence."""

from sglang.srt.managers.schedule_batch import ScheduleBatch
from sglang.standin import make_batch


def flags(batch: ScheduleBatch, expected, extra):
    return (batch.is_spec_v2 == expected, batch.is_spec_v2 and extra, not batch.is_spec_v2)


def main():
    return [flags(make_batch(algorithm="EAGLE"), True, 1), flags(make_batch(), True, 0)]
