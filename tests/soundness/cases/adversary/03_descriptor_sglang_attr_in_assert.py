# expect: same
"""Derived-mode assert against an attribute of an SGLang-imported class, which is a descriptor (type() dict __get__)."""
from sglang.srt.managers.schedule_batch import ScheduleBatch
from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.srt.model_executor.forward_batch_info import ForwardBatch, CaptureHiddenMode
from sglang.standin import make_batch, record


HELD = []


def _get(self, obj, owner=None):
    HELD[0].prepare_for_decode()
    return CaptureHiddenMode.NULL


ScheduleBatch.probe = type("Probe", (), {"__get__": _get})()


def main():
    batch = make_batch()
    HELD.append(batch)
    mwb = batch.get_model_worker_batch()
    assert mwb.capture_hidden_mode is ScheduleBatch.probe
    return ForwardBatch.init_new(mwb, None)
