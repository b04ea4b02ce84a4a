# expect: same unmarked
"""A window of an assert on the snapshot's capture mode and `ForwardBatch.init_new`: the assert
reads the old method's derivation from the batch, where it stands."""
from sglang.srt.managers.schedule_batch import ModelWorkerBatch, ScheduleBatch
from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.srt.model_executor.forward_batch_info import CaptureHiddenMode, ForwardBatch, ForwardMode
from sglang.standin import make_batch, record, run_batch


class Spec:
    capture_hidden_mode = CaptureHiddenMode.LAST


def draft(batch, expected):
    model_worker_batch = batch.get_model_worker_batch()
    assert model_worker_batch.capture_hidden_mode == expected
    forward_batch = ForwardBatch.init_new(model_worker_batch, None)
    return forward_batch.capture_hidden_mode


def main():
    results = [
        draft(make_batch(), CaptureHiddenMode.NULL),
        draft(make_batch(return_hidden_states=True), CaptureHiddenMode.FULL),
        draft(make_batch(spec_info=Spec()), CaptureHiddenMode.LAST),
    ]
    try:
        draft(make_batch(spec_info=Spec()), CaptureHiddenMode.FULL)
    except AssertionError:
        results.append("raised")
    return results
