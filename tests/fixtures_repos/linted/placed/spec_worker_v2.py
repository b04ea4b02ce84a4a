"""The spec-v2 EAGLE worker of the fork: verify records its tensors on a stream."""

import logging
from typing import Optional

import torch

from sglang.srt.managers.schedule_batch import ModelWorkerBatch

logger = logging.getLogger(__name__)


class EAGLEWorkerV2:
    def verify(self, scheduled_verify_batch, token_budget: Optional[int]):
        # record_stream() keeps the tensor alive while forward_stream still runs.
        scheduled_verify_batch.seq_lens.record_stream(
            torch.get_device_module(self.device).current_stream()
        )
        verify_input = scheduled_verify_batch.spec_info
        with self.plan_stream_ctx:
            verify_forward_batch, can_run_cuda_graph = (
                verify_input.prepare_for_v2_verify(
                    self.req_to_token_pool, scheduled_verify_batch, self.target_worker
                )
            )
        return verify_forward_batch, can_run_cuda_graph

    def draft_tokens(self, batch: ModelWorkerBatch) -> int:
        return len(batch.input_ids)
