"""The fork's tensor-parallel worker: its forward takes the capture mode through."""

from typing import Optional

from sglang.srt.managers.schedule_batch import ModelWorkerBatch
from sglang.srt.model_executor.forward_batch_info import ForwardBatch


class TpModelWorker:
    def forward_batch_generation(
        self,
        model_worker_batch: ModelWorkerBatch,
        forward_batch: Optional[ForwardBatch] = None,
        is_verify: bool = False,
    ):
        if model_worker_batch is not None:
            forward_batch = ForwardBatch.init_new(model_worker_batch, self.model_runner)
        return self.model_runner.forward(forward_batch)
