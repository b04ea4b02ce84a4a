# expect: reported MWB138
"""A module-level helper in plugin/verify.py writes the capture mode on its parameter and forwards
it on a target worker; the main module keeps a snapshot, hands it to the helper, then hands the
same snapshot to its own draft step (init_new on a draft runner). The old object kept the FULL
write for the draft step."""

from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.srt.model_executor.forward_batch_info import ForwardBatch
from sglang.srt.model_executor.model_runner import ModelRunner
from sglang.standin import make_batch, record

from .verify import verify_on


class DraftRunner(ModelRunner):
    is_draft_worker = True


def draft_step(mwb, runner):
    forward_batch = ForwardBatch.init_new(mwb, runner)
    record("draft_mode", forward_batch.capture_hidden_mode)
    return runner.forward(forward_batch)


def main():
    batch = make_batch()
    mwb = batch.get_model_worker_batch()
    out = verify_on(TpModelWorker(), mwb)
    return out, draft_step(mwb, DraftRunner())


# --- module: plugin/verify.py ---
from sglang.srt.managers.schedule_batch import ModelWorkerBatch
from sglang.srt.model_executor.forward_batch_info import CaptureHiddenMode


def verify_on(tp_worker, model_worker_batch: ModelWorkerBatch):
    model_worker_batch.capture_hidden_mode = CaptureHiddenMode.FULL
    return tp_worker.forward_batch_generation(model_worker_batch)
