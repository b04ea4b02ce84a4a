# expect: same MWB116
"""An override set on either branch, then one forward: each branch's value is consumed there. The
set on the other branch is no later set of this one (no MWB103); neither moves next to the forward
(MWB116, as before)."""
from sglang.srt.managers.schedule_batch import ModelWorkerBatch, ScheduleBatch
from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.srt.model_executor.forward_batch_info import CaptureHiddenMode, ForwardBatch, ForwardMode
from sglang.standin import make_batch, record, run_batch


class Worker(TpModelWorker):
    target = TpModelWorker()

    def forward_batch_generation(self, model_worker_batch: ModelWorkerBatch):
        if model_worker_batch.return_logprob:
            model_worker_batch.capture_hidden_mode = CaptureHiddenMode.FULL
        else:
            model_worker_batch.capture_hidden_mode = CaptureHiddenMode.LAST
        return self.target.forward_batch_generation(model_worker_batch)


def main():
    batch = make_batch()
    return run_batch(Worker(), batch), run_batch(TpModelWorker(), batch)
