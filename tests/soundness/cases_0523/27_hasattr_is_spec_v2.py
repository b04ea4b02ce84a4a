# expect: reported MWB158
"""hasattr as a feature test of is_spec_v2: always False on 0.5.23."""

from sglang.srt.managers.schedule_batch import ScheduleBatch
from sglang.standin import make_batch


def route(batch: ScheduleBatch):
    if hasattr(batch, "is_spec_v2") and batch.spec_algorithm.is_none():
        return "plain-v1-api"
    return "other"


def main():
    return route(make_batch())
