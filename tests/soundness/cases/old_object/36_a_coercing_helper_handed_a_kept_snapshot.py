# expect: same
"""A target wrapper that coerces what it is handed (`batch.get_model_worker_batch() if
isinstance(batch, ScheduleBatch) else batch`), handed a kept snapshot by a speculative worker that
set its capture mode: the snapshot passes the type test as the batch, where the old object failed
it and went on as itself; a snapshot of a snapshot is that snapshot."""
from sglang.srt.managers.schedule_batch import ScheduleBatch
from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.srt.model_executor.forward_batch_info import CaptureHiddenMode
from sglang.standin import make_batch, record


class Target:
    def __init__(self):
        self.worker = TpModelWorker()

    def _coerce(self, batch):
        return batch.get_model_worker_batch() if isinstance(batch, ScheduleBatch) else batch

    def forward(self, batch):
        return self.worker.forward_batch_generation(self._coerce(batch))


class Drafter:
    def __init__(self):
        self.target = Target()

    def forward_target_extend(self, batch):
        model_worker_batch = batch.get_model_worker_batch()
        model_worker_batch.capture_hidden_mode = CaptureHiddenMode.LAST
        out = self.target.forward(model_worker_batch)
        return out, model_worker_batch.seq_lens_cpu


def main():
    return Drafter().forward_target_extend(make_batch())
