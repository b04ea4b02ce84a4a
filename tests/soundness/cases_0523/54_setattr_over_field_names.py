# expect: same MWB158
"""`setattr` over a tuple of field names, one of which 0.5.19 removed from the batch: the read that
follows is reported, and the write adds back an attribute the same read then finds."""

from sglang.srt.managers.schedule_batch import ScheduleBatch
from sglang.standin import make_batch

FLAGS = ("can_run_dp_cuda_graph", "return_logprob")


def disable(batch: ScheduleBatch):
    for name in FLAGS:
        setattr(batch, name, False)
    return batch.can_run_dp_cuda_graph


def main():
    return disable(make_batch())
