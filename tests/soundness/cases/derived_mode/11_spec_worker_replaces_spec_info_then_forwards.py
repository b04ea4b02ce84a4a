# expect: reported MWB104
"""A speculative V2 worker puts its draft input on the batch it was handed and builds its forward batch. The old
object's capture mode was derived when the scheduler took it (no speculative input: NULL), and
0.5.12's init_new read that field; 0.5.13's init_new derives it at the forward from the new input
(LAST). The write is a note only (MWB180): isolation sets it back after the forward."""
from sglang.srt.managers.schedule_batch import ModelWorkerBatch, ScheduleBatch
from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.srt.model_executor.forward_batch_info import CaptureHiddenMode, ForwardBatch, ForwardMode
from sglang.srt.speculative.eagle_worker_v2 import EAGLEWorkerV2
from sglang.standin import make_batch, record, run_batch


class DraftInput:
    capture_hidden_mode = CaptureHiddenMode.LAST


class DraftingWorker(EAGLEWorkerV2):
    def forward_batch_generation(self, model_worker_batch: ModelWorkerBatch, on_publish=None):
        model_worker_batch.spec_info = DraftInput()
        forward_batch = ForwardBatch.init_new(model_worker_batch, None)
        return forward_batch.observed["capture_hidden_mode"]


def main():
    return run_batch(DraftingWorker(), make_batch(), speculative=True)
