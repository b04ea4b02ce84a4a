"""The fork's own spec-v2 worker: stdlib and first-party imports only."""

import os
from typing import Optional

from forkext.streams import current_forward_stream_for_speculative_verification
from sglang.srt.managers.schedule_batch import ModelWorkerBatch

DEBUG = os.environ.get("FORKEXT_DEBUG")


class ForkEagleWorker:
    def verify(self, speculative_draft_verify_batch, budget: Optional[int]):
        speculative_draft_verify_batch.seq_lens.record_stream(
            current_forward_stream_for_speculative_verification(self.device_index)
        )
        verify_input = speculative_draft_verify_batch.spec_info
        forward_batch, graphable = verify_input.prepare_for_v2_verify(
            self.req_to_token_pool, speculative_draft_verify_batch, self.target_worker
        )
        return forward_batch, graphable

    def draft_tokens(self, batch: ModelWorkerBatch) -> int:
        return len(batch.input_ids)
