# expect: same
"""filter_batch(chunked_req_to_exclude=...) becomes reqs_to_exclude= on 0.5.22."""

from sglang.srt.managers.schedule_batch import ScheduleBatch
from sglang.standin import make_batch


def drop_chunked(batch: ScheduleBatch, chunked):
    batch.filter_batch(chunked_req_to_exclude=chunked)
    return batch.batch_size()


def main():
    batch = make_batch()
    return drop_chunked(batch, batch.reqs[0])
