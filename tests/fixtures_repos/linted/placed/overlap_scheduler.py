"""The fork's scheduler: the overlap loop copies and pins the batch for the forward."""

import logging

from sglang.srt.managers.schedule_batch import ScheduleBatch

logger = logging.getLogger(__name__)


class Scheduler:
    def init_overlap(self):
        self.batch_record_buf = [None] * 2
        self.batch_record_ct = 0

    def run_batch(self, batch: ScheduleBatch):
        if self.enable_overlap:
            for _ in range(1):
                overlapped_model_worker_batch = batch.get_model_worker_batch()
                self.record_batch_in_overlap(overlapped_model_worker_batch)
                # Sampling info will be modified during forward, so we store a copy.
                overlapped_model_worker_batch.sampling_info = (
                    overlapped_model_worker_batch.sampling_info.copy_for_forward()
                )
                bs = len(overlapped_model_worker_batch.seq_lens)

                with self.forward_stream_ctx:
                    result = self.model_worker.forward_batch_generation(
                        overlapped_model_worker_batch
                    )
                batch.spec_info = result.next_draft_input
                return result, bs
        return None
