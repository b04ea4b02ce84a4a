# expect: reported MWB138
"""The capture mode set through setattr from a config-driven field name.

A capture mode set with `setattr` on a kept snapshot handed to an unknown worker's forward."""

from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.srt.model_executor.forward_batch_info import CaptureHiddenMode
from sglang.standin import make_batch


def step(worker, batch):
    mwb = batch.get_model_worker_batch()
    setattr(mwb, "capture_hidden_mode", CaptureHiddenMode.FULL)  # noqa: B010
    return worker.forward_batch_generation(mwb)


def main():
    return step(TpModelWorker(), make_batch())
