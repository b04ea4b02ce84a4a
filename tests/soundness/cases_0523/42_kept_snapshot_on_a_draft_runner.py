# expect: same
"""A snapshot kept in code (the runner is picked per call) handed to `init_new` on a draft runner:
the old `init_new` read the capture mode the old object carried (the one written on it, else the one
the old method derived from the speculative input). From 0.5.17, `init_new` without a capture mode
captures nothing on a draft runner, so the migrated call takes the snapshot's own."""

from sglang.srt.model_executor.forward_batch_info import CaptureHiddenMode, ForwardBatch
from sglang.srt.model_executor.model_runner import ModelRunner
from sglang.standin import make_batch, record


class DraftRunner(ModelRunner):
    is_draft_worker = True


class SpecInput:
    capture_hidden_mode = CaptureHiddenMode.LAST


class DraftWorker:
    def __init__(self):
        self.runners = [DraftRunner(), DraftRunner()]

    def pick_runner(self, step):
        return self.runners[step % 2]

    def draft(self, batch):
        model_worker_batch = batch.get_model_worker_batch()
        derived = ForwardBatch.init_new(model_worker_batch, self.pick_runner(0))
        model_worker_batch.capture_hidden_mode = CaptureHiddenMode.FULL
        written = ForwardBatch.init_new(model_worker_batch, self.pick_runner(1))
        again = ForwardBatch.init_new(model_worker_batch, self.pick_runner(2))
        record("modes", [derived.observed["capture_hidden_mode"] for derived in (derived, written, again)])
        return derived, written, again


def main():
    return DraftWorker().draft(make_batch(spec_info=SpecInput()))
