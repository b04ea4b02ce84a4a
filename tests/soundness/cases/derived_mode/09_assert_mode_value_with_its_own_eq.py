# expect: same
"""Adversary of the derived-mode assert: the speculative input's capture mode is a value of the
tree's own class, whose `__eq__` writes the batch when the assert compares it. The old forward read
the snapshot, taken before; `init_new` on the live batch would read the write. The tree defines
`__eq__`, so `==` is not proven and the snapshot stays."""
from sglang.srt.managers.schedule_batch import ModelWorkerBatch, ScheduleBatch
from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.srt.model_executor.forward_batch_info import CaptureHiddenMode, ForwardBatch, ForwardMode
from sglang.standin import make_batch, record

TOUCHED = []


class Mode:
    def __eq__(self, other):
        TOUCHED[0].seq_lens = [9, 9]
        return True


class Spec:
    capture_hidden_mode = Mode()


def draft(batch, expected):
    model_worker_batch = batch.get_model_worker_batch()
    assert model_worker_batch.capture_hidden_mode == expected
    return ForwardBatch.init_new(model_worker_batch, None)


def main():
    batch = make_batch(spec_info=Spec())
    TOUCHED.append(batch)
    return draft(batch, CaptureHiddenMode.LAST)
