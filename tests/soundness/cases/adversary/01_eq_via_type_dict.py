# expect: same
"""Derived-mode assert whose comparator's __eq__ (installed via type() dict) decodes the batch."""
from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.srt.model_executor.forward_batch_info import ForwardBatch, CaptureHiddenMode
from sglang.standin import make_batch, record


def main():
    batch = make_batch()

    def _eq(self, other):
        batch.prepare_for_decode()
        return True

    Sneaky = type("Sneaky", (), {"__eq__": _eq, "__hash__": None})
    mode = Sneaky()
    mwb = batch.get_model_worker_batch()
    assert mwb.capture_hidden_mode == mode
    fb = ForwardBatch.init_new(mwb, None)
    return fb.observed
