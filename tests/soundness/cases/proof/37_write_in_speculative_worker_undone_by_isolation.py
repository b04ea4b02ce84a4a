# expect: same unmarked
"""Rule I1: a speculative V2 worker's write to its batch is set back by 0.5.13's forward isolation."""
from sglang.srt.managers.schedule_batch import ModelWorkerBatch, ScheduleBatch
from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.srt.model_executor.forward_batch_info import CaptureHiddenMode, ForwardBatch, ForwardMode
from sglang.srt.speculative.eagle_worker_v2 import EAGLEWorkerV2
from sglang.standin import make_batch, record, run_batch


class DraftingWorker(EAGLEWorkerV2):
    def forward_batch_generation(self, model_worker_batch: ModelWorkerBatch, on_publish=None):
        model_worker_batch.spec_info = "draft"
        model_worker_batch.seq_lens = [9, 9]
        record("inside", model_worker_batch.spec_info)
        return super().forward_batch_generation(model_worker_batch, on_publish=on_publish)


def main():
    batch = make_batch()
    record("result", run_batch(DraftingWorker(), batch, speculative=True))
    record("after", (batch.spec_info, batch.seq_lens))
