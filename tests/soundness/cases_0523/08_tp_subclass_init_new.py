# expect: same
"""A TpModelWorker subclass that builds its own forward batch, called by a spec-v2 worker: it
gains capture_hidden_mode (passed to init_new) and return_kv_loc_plan."""

from typing import Optional

from sglang.srt.managers.schedule_batch import ModelWorkerBatch
from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.srt.model_executor.forward_batch_info import ForwardBatch
from sglang.srt.speculative.eagle_worker_v2 import EAGLEWorkerV2
from sglang.standin import make_batch, schedule


class MyTp(TpModelWorker):
    def forward_batch_generation(
        self, model_worker_batch: ModelWorkerBatch, forward_batch: Optional[ForwardBatch] = None
    ):
        forward_batch = ForwardBatch.init_new(model_worker_batch, self.model_runner)
        return self.model_runner.forward(forward_batch)


def main():
    worker = EAGLEWorkerV2(target_worker=MyTp())
    return schedule(worker, make_batch(algorithm="EAGLE"))
