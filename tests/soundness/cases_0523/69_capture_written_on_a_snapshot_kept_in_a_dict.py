# expect: reported MWB138
"""Per-step state in a dict: the snapshot and its capture mode, then the target forward.

The mode is written on a snapshot kept in a dict, which the rewrite does not follow to the forward."""

from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.srt.model_executor.forward_batch_info import CaptureHiddenMode
from sglang.standin import make_batch


def step(target_worker, batch):
    state = {"mwb": batch.get_model_worker_batch()}
    state["mwb"].capture_hidden_mode = CaptureHiddenMode.FULL
    return target_worker.forward_batch_generation(state["mwb"])


def main():
    return step(TpModelWorker(), make_batch())
