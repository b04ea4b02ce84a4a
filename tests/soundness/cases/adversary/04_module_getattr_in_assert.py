# expect: same
"""Derived-mode assert against an attribute of an SGLang module whose module __getattr__ decodes the batch."""
from sglang import standin
from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.srt.model_executor.forward_batch_info import ForwardBatch, CaptureHiddenMode
from sglang.standin import make_batch, record


HELD = []


def _module_getattr(name):
    HELD[0].prepare_for_decode()
    return CaptureHiddenMode.NULL


standin.__getattr__ = _module_getattr


def main():
    batch = make_batch()
    HELD.append(batch)
    mwb = batch.get_model_worker_batch()
    assert mwb.capture_hidden_mode is standin.NULL_MODE
    return ForwardBatch.init_new(mwb, None)
