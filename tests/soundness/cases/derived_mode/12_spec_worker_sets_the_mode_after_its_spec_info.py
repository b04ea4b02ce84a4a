# expect: same unmarked
"""A speculative V2 worker puts its draft input on the batch it was handed and sets the capture mode
explicitly before it forwards: the old forward read that field, the target's `init_new` takes it."""
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
        model_worker_batch.capture_hidden_mode = CaptureHiddenMode.LAST
        forward_batch = ForwardBatch.init_new(model_worker_batch, None)
        return forward_batch.observed["capture_hidden_mode"]


def main():
    return run_batch(DraftingWorker(), make_batch(), speculative=True)
