# expect: same unmarked
"""A helper reads the extend lengths with no gate of its own; its one caller calls it only where
the old object's forward mode is an extend (through a local bound to it), so it read them there."""
from sglang.srt.managers.schedule_batch import ModelWorkerBatch, ScheduleBatch
from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.srt.model_executor.forward_batch_info import CaptureHiddenMode, ForwardBatch, ForwardMode
from sglang.standin import make_batch, record, run_batch


class Worker(TpModelWorker):
    def forward_batch_generation(self, model_worker_batch: ModelWorkerBatch):
        forward_mode = model_worker_batch.forward_mode
        if forward_mode.is_extend():
            return self._extend(model_worker_batch)
        return None

    def _extend(self, model_worker_batch: ModelWorkerBatch):
        record("lens", model_worker_batch.extend_seq_lens)
        return model_worker_batch.extend_prefix_lens


def main():
    worker = Worker()
    return [run_batch(worker, make_batch(forward_mode=mode)) for mode in ForwardMode]
