# expect: same MWB138
"""The snapshot bound by `with ... as mwb`, written, forwarded on the target, then forwarded again."""

import contextlib

from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.srt.model_executor.forward_batch_info import CaptureHiddenMode
from sglang.standin import make_batch


def step(target_worker, batch):
    with contextlib.nullcontext(batch.get_model_worker_batch()) as mwb:
        mwb.capture_hidden_mode = CaptureHiddenMode.FULL
        first = target_worker.forward_batch_generation(mwb)
    second = target_worker.forward_batch_generation(mwb)
    return first, second


def main():
    return step(TpModelWorker(), make_batch())
