# expect: same
"""A helper that branches on is_spec_v2, which 0.5.14 removed."""

from sglang.srt.managers.schedule_batch import ScheduleBatch
from sglang.standin import make_batch


def route(batch: ScheduleBatch):
    if batch.is_spec_v2:
        return "v2"
    return "plain"


def main():
    return [route(make_batch(algorithm="EAGLE")), route(make_batch())]
