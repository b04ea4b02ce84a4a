# expect: same MWB138
"""A generic dispatch helper: asks for last-token hidden states, then forwards on whatever worker it is
given (here the speculative worker).

The worker may be a speculative one, which takes no `capture_hidden_mode=`: nothing is folded into
its forward (a `TypeError` there), and the write stays on the snapshot, marked."""

from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.srt.model_executor.forward_batch_info import CaptureHiddenMode
from sglang.srt.speculative.eagle_worker_v2 import EAGLEWorkerV2
from sglang.standin import make_batch


def run_worker(worker, batch):
    mwb = batch.get_model_worker_batch()
    mwb.capture_hidden_mode = CaptureHiddenMode.LAST
    return worker.forward_batch_generation(mwb)


def main():
    return run_worker(EAGLEWorkerV2(target_worker=TpModelWorker()), make_batch())
