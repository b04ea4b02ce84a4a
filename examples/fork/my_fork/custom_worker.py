"""A custom tensor-parallel worker, as a hardware fork would write it.

Data flow: ScheduleBatch -> ModelWorkerBatch -> ForwardBatch
"""

from typing import Optional

import torch

from sglang.srt.managers.schedule_batch import ModelWorkerBatch
from sglang.srt.model_executor.forward_batch_info import ForwardBatch


class MyTpWorker:
    """Runs one forward pass per scheduler step on a custom accelerator."""

    def __init__(self, model_runner, device: str = "cuda"):
        self.model_runner = model_runner
        self.device = device

    def forward_batch_generation(
        self,
        model_worker_batch: ModelWorkerBatch,
        launch_done: Optional[torch.cuda.Event] = None,
    ):
        forward_batch = ForwardBatch.init_new(model_worker_batch, self.model_runner)
        logits_output = self.model_runner.forward(forward_batch)
        if launch_done is not None:
            launch_done.set()
        if model_worker_batch.is_prefill_only:
            return logits_output, None
        next_token_ids = self.model_runner.sample(logits_output, forward_batch)
        return logits_output, next_token_ids

    def forward_batch_embedding(self, model_worker_batch: ModelWorkerBatch):
        forward_batch = ForwardBatch.init_new(model_worker_batch, self.model_runner)
        return self.model_runner.forward(forward_batch).embeddings

    def num_tokens(self, model_worker_batch: ModelWorkerBatch) -> int:
        # only meaningful for extend (prefill) batches
        return sum(model_worker_batch.extend_seq_lens)
