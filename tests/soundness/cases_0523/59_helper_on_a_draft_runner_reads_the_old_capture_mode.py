# expect: same
"""A helper whose parameter held the old object builds the forward batch on a draft runner: the old
`init_new` read the capture mode the old method derived (FULL, from the batch's request for hidden
states). From 0.5.17 `init_new` with no capture mode ignores that request on a draft runner; the
migrated call passes the old object's mode (`worker_batch_capture_mode`)."""

from sglang.srt.managers.schedule_batch import ModelWorkerBatch
from sglang.srt.model_executor.forward_batch_info import ForwardBatch
from sglang.srt.model_executor.model_runner import ModelRunner
from sglang.standin import make_batch, record


class DraftRunner(ModelRunner):
    is_draft_worker = True


def draft(model_worker_batch: ModelWorkerBatch, runner):
    forward_batch = ForwardBatch.init_new(model_worker_batch, runner)
    record("mode", forward_batch.observed["capture_hidden_mode"])
    return runner.forward(forward_batch)


def main():
    batch = make_batch(return_hidden_states=True)
    return draft(batch.get_model_worker_batch(), DraftRunner())
