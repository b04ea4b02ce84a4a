# expect: reported MWB112
"""Adversary of the reader one call away. A worker's own `sample` runs before its forward (a pre-pass that pins every request to the base
adapter) and reads only copied fields, writing through `reqs` to a request. The old object's
`lora_ids` were taken when the scheduler made it; 0.5.13's init_new reads the requests at the
forward, after the write."""
from sglang.srt.managers.schedule_batch import ModelWorkerBatch, ScheduleBatch
from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.srt.model_executor.forward_batch_info import CaptureHiddenMode, ForwardBatch, ForwardMode
from sglang.srt.speculative.eagle_worker_v2 import EAGLEWorkerV2
from sglang.standin import make_batch, record, run_batch


class Worker(TpModelWorker):
    def forward_batch_generation(self, model_worker_batch: ModelWorkerBatch):
        self.sample(None, model_worker_batch)
        return self._forward(model_worker_batch)

    def sample(self, logits, model_worker_batch: ModelWorkerBatch):
        for req in model_worker_batch.reqs:
            req.lora_id = None
        return logits


def main():
    return run_batch(Worker(), make_batch())
