# expect: reported MWB158
"""A read of can_run_dp_cuda_graph, which 0.5.19 removed."""

from sglang.srt.managers.schedule_batch import ScheduleBatch
from sglang.standin import make_batch


def use_graph(batch: ScheduleBatch):
    return batch.can_run_dp_cuda_graph


def main():
    return use_graph(make_batch())
