# expect: same
"""is_spec_v2 read through getattr with a default: on 0.5.23 the default would always win."""

from sglang.srt.managers.schedule_batch import ScheduleBatch
from sglang.standin import make_batch


def route(batch: ScheduleBatch):
    if getattr(batch, "is_spec_v2", False):
        return "v2"
    return "plain"


def main():
    return [route(make_batch(algorithm="EAGLE")), route(make_batch())]
