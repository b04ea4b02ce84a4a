"""A speculative-decoding plugin that drives the target worker itself."""

from __future__ import annotations

from typing import TYPE_CHECKING, Optional, Union

from sglang.srt.model_executor.forward_batch_info import CaptureHiddenMode, ForwardBatch

if TYPE_CHECKING:
    from sglang.srt.managers.schedule_batch import ModelWorkerBatch, ScheduleBatch


class MySpecPlugin:
    def __init__(self, target_worker, draft_runner):
        self.target_worker = target_worker
        self.draft_runner = draft_runner

    def verify(self, model_worker_batch: ModelWorkerBatch):
        model_worker_batch.capture_hidden_mode = CaptureHiddenMode.FULL
        return self.target_worker.forward_batch_generation(model_worker_batch)

    def draft(self, model_worker_batch: Optional[ModelWorkerBatch]) -> Optional[ForwardBatch]:
        if model_worker_batch is None:
            return None
        model_worker_batch.capture_hidden_mode = CaptureHiddenMode.LAST
        forward_batch = ForwardBatch.init_new(model_worker_batch, self.draft_runner)
        return forward_batch

    def accepted_lengths(self, batch: Union[ScheduleBatch, ModelWorkerBatch]) -> list:
        return [n + 1 for n in batch.extend_seq_lens]

    def prefix_total(self, model_worker_batch: ModelWorkerBatch) -> int:
        lens = model_worker_batch.extend_seq_lens
        prefix = model_worker_batch.extend_prefix_lens
        return sum(lens) + sum(prefix)
