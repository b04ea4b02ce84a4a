# expect: reported MWB138
"""The worker batch taken alongside the step index, capture written, forwarded twice.

A snapshot bound by tuple unpacking is a kept snapshot: its write is not folded away."""

from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.srt.model_executor.forward_batch_info import CaptureHiddenMode
from sglang.standin import make_batch


def step(worker, batch, index):
    mwb, idx = batch.get_model_worker_batch(), index
    mwb.capture_hidden_mode = CaptureHiddenMode.FULL
    first = worker.forward_batch_generation(mwb)
    batch.seq_lens = [5, 6]
    second = worker.forward_batch_generation(mwb)
    return idx, first, second


def main():
    return step(TpModelWorker(), make_batch(), 3)
