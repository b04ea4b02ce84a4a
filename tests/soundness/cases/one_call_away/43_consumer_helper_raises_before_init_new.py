# expect: reported MWB103
"""Rule 8's consumer one call away, whose body can raise before its `init_new` (no `return`, but a
`raise` on an empty draft): the caller catches it and goes on. The capture override the caller
wrote stays on the scheduler's batch, and the next step's forward consumes it; before, it sat on a
throw-away old object."""
from sglang.srt.managers.schedule_batch import ModelWorkerBatch, ScheduleBatch
from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.srt.model_executor.forward_batch_info import CaptureHiddenMode, ForwardBatch, ForwardMode
from sglang.srt.speculative.eagle_worker_v2 import EAGLEWorkerV2
from sglang.standin import make_batch, record, run_batch


class Drafter:
    def _extend(self, batch: ModelWorkerBatch, runner):
        if batch.forward_mode.is_decode():
            raise LookupError("nothing to draft in decode")
        forward_batch = ForwardBatch.init_new(batch, runner)
        return forward_batch.capture_hidden_mode


class Worker(TpModelWorker):
    drafter = Drafter()

    def forward_batch_generation(self, model_worker_batch: ModelWorkerBatch):
        model_worker_batch.capture_hidden_mode = CaptureHiddenMode.FULL
        try:
            return self.drafter._extend(model_worker_batch, None)
        except LookupError:
            return None


def main():
    batch = make_batch()
    batch.prepare_for_decode()
    first = run_batch(Worker(), batch)
    return first, run_batch(TpModelWorker(), batch)
