# expect: reported MWB103 MWB106
# The alias is named `wb` (no clash with the renamed parameter).
# source: DVR spec-v2 workers:
#   `def forward_batch_generation(self, model_worker_batch, on_publish=None): batch = model_worker_batch;
#    if batch.forward_mode.is_extend() ...: batch.capture_hidden_mode = CaptureHiddenMode.NULL;
#    target_result = self.target_worker.forward_batch_generation(batch); batch.spec_info = EagleDraftInput(...)`
#   followed by the draft model's own forward on the same object.
"""A spec-v2 worker writes the capture mode on the object it was handed (through a local alias), runs the
target forward, installs the next draft input, then runs the draft forward on the same object: on the old
object the written mode was still there for the second forward."""
from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.srt.model_executor.forward_batch_info import CaptureHiddenMode, ForwardBatch
from sglang.srt.model_executor.model_runner import ModelRunner
from sglang.srt.speculative.eagle_worker_v2 import EAGLEWorkerV2
from sglang.standin import make_batch, record, run_batch


class EagleDraftInput:
    capture_hidden_mode = CaptureHiddenMode.LAST


class DVRWorkerV2(EAGLEWorkerV2):
    def __init__(self):
        super().__init__()
        self.target_worker = TpModelWorker()
        self.draft_runner = ModelRunner()

    def forward_batch_generation(self, model_worker_batch, on_publish=None):
        wb = model_worker_batch
        if wb.forward_mode.is_extend():
            wb.capture_hidden_mode = CaptureHiddenMode.NULL
            target_result = self.target_worker.forward_batch_generation(wb)
            wb.spec_info = EagleDraftInput()
            draft_fb = ForwardBatch.init_new(wb, self.draft_runner)
            record("draft", self.draft_runner.forward(draft_fb))
            return target_result
        return None


def main():
    return run_batch(DVRWorkerV2(), make_batch(), speculative=True)
