# expect: same
"""is_spec_v2 read in a lambda that closes over the batch parameter."""

from sglang.srt.managers.schedule_batch import ScheduleBatch
from sglang.standin import make_batch


def router(batch: ScheduleBatch):
    pick = lambda: "v2" if batch.is_spec_v2 else "plain"  # noqa: E731
    return pick()


def main():
    return [router(make_batch(algorithm="EAGLE")), router(make_batch())]
