# expect: reported
"""`filter_batch(**options)` with the mapping built in another method: the keyword 0.5.22 renamed is
a string key the rewrite does not see as a keyword."""

from sglang.srt.managers.schedule_batch import ScheduleBatch
from sglang.standin import make_batch


class Pruner:
    def options(self, chunked):
        return {"chunked_req_to_exclude": chunked}

    def drop(self, batch: ScheduleBatch, chunked):
        batch.filter_batch(**self.options(chunked))
        return batch.batch_size()


def main():
    batch = make_batch()
    return Pruner().drop(batch, batch.reqs[0])
