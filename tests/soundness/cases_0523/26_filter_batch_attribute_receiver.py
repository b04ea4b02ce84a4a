# expect: same
"""filter_batch(chunked_req_to_exclude=...) on an attribute receiver (`self.last_batch`)."""

from sglang.standin import make_batch


class Scheduler:
    def __init__(self):
        self.last_batch = make_batch()

    def drop_chunked(self, chunked):
        self.last_batch.filter_batch(chunked_req_to_exclude=chunked)
        return self.last_batch.batch_size()


def main():
    scheduler = Scheduler()
    return scheduler.drop_chunked(scheduler.last_batch.reqs[0])
