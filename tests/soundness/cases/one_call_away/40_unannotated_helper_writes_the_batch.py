# expect: reported MWB106
"""A worker hands the old object to a helper whose parameter is neither annotated nor named
`model_worker_batch`; the helper trims `seq_lens` on it. The write hit a throw-away copy before;
now it reaches the scheduler's batch (a TpModelWorker forward is not isolated), with no MWB106."""
from sglang.srt.managers.schedule_batch import ModelWorkerBatch, ScheduleBatch
from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.srt.model_executor.forward_batch_info import CaptureHiddenMode, ForwardBatch, ForwardMode
from sglang.srt.speculative.eagle_worker_v2 import EAGLEWorkerV2
from sglang.standin import make_batch, record, run_batch


def _trim(batch):
    batch.seq_lens = [n - 1 for n in batch.seq_lens]


class Worker(TpModelWorker):
    def forward_batch_generation(self, model_worker_batch: ModelWorkerBatch):
        _trim(model_worker_batch)
        return self._forward(model_worker_batch)


def main():
    batch = make_batch()
    run_batch(Worker(), batch)
    return batch.seq_lens
