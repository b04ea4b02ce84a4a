"""The fork's forward batch: built from the scheduler's batch."""

from __future__ import annotations

import enum

import torch

from sglang.srt.managers.schedule_batch import ModelWorkerBatch


class CaptureHiddenMode(enum.IntEnum):
    NULL = 0
    FULL = 2


class ForwardBatch:
    positions: list[torch.Tensor]

    @classmethod
    def init_new(cls, scheduled_model_worker_batch: ModelWorkerBatch, model_runner):
        """Build the forward batch."""
        ret = cls()
        ret.capture_hidden_mode = scheduled_model_worker_batch.capture_hidden_mode
        ret.extend_seq_lens = scheduled_model_worker_batch.extend_seq_lens
        return ret
