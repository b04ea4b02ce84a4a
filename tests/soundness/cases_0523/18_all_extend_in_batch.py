# expect: reported MWB158
"""A read of all_extend_in_batch, which 0.5.16 removed."""

from sglang.srt.managers.schedule_batch import ScheduleBatch
from sglang.standin import make_batch, record


def log_mode(batch: ScheduleBatch):
    record("all_extend", batch.all_extend_in_batch)


def main():
    log_mode(make_batch())
