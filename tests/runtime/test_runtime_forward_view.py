"""`forward_batch_view`: the one-shot fields on the batch (0.5.13) or `init_new`'s keyword
arguments (0.5.16), on batch classes with and without the fields."""

from __future__ import annotations

import dataclasses
from typing import Any, List, Optional

import pytest
import torch

from mwbmigrate.runtime import FORWARD_OVERRIDE_NAMES, forward_batch_view, resolve_forward_arguments


@dataclasses.dataclass
class BatchWithoutOverrideFields:
    """ScheduleBatch as 0.5.16 declares it, reduced: no one-shot override field."""

    reqs: List[Any] = dataclasses.field(default_factory=list)
    forward_mode: Any = None
    spec_info: Any = None
    sampling_info: Any = None
    return_hidden_states: bool = False
    has_grammar: bool = False
    seq_lens: Optional[torch.Tensor] = None
    seq_lens_cpu: Optional[torch.Tensor] = None
    seq_lens_sum: Optional[int] = None
    extend_lens: Optional[List[int]] = None


def test_without_keywords_the_batch_fields_are_consumed(fakes):
    mode = fakes.CaptureHiddenMode
    batch = fakes.make_batch(seq_lens=[3, 4])
    batch.capture_hidden_mode = mode.LAST
    batch.return_hidden_states_before_norm = True
    view = forward_batch_view(batch, mode)
    assert view.capture_hidden_mode is mode.LAST
    assert view.return_hidden_states_before_norm is True
    assert (batch.capture_hidden_mode, batch.return_hidden_states_before_norm) == (None, False)


def test_keywords_win_and_the_batch_fields_are_left_alone(fakes):
    """0.5.16's init_new must not mutate the batch; a stale field from older code is ignored."""
    mode = fakes.CaptureHiddenMode
    batch = fakes.make_batch(seq_lens=[3, 4])
    stale = torch.tensor([9])  # the wrong shape: would raise under the 0.5.13 contract
    batch.seq_lens_cpu_cache = stale
    batch.capture_hidden_mode = mode.NULL
    view = forward_batch_view(batch, mode, capture_hidden_mode=mode.FULL, return_hidden_states_before_norm=True)
    assert view.capture_hidden_mode is mode.FULL
    assert view.return_hidden_states_before_norm is True
    assert view.seq_lens_cpu is batch.seq_lens_cpu
    assert batch.seq_lens_cpu_cache is stale and batch.capture_hidden_mode is mode.NULL


def test_one_keyword_given_the_other_takes_its_default(fakes):
    mode = fakes.CaptureHiddenMode
    batch = fakes.make_batch(return_hidden_states=True)
    view = forward_batch_view(batch, mode, return_hidden_states_before_norm=False)
    assert view.capture_hidden_mode is mode.FULL  # derived: return_hidden_states
    assert view.return_hidden_states_before_norm is False


def test_batch_class_without_the_fields_0_5_16(fakes):
    mode = fakes.CaptureHiddenMode
    batch = BatchWithoutOverrideFields(
        reqs=[fakes.FakeReq(1)], seq_lens=torch.tensor([5]), seq_lens_cpu=torch.tensor([5]), extend_lens=[5]
    )
    view = forward_batch_view(batch, mode, capture_hidden_mode=mode.LAST, return_hidden_states_before_norm=False)
    assert view.capture_hidden_mode is mode.LAST
    assert view.extend_lens == [5]
    assert batch.seq_lens_sum == 5  # the backfill 0.5.16 keeps
    assert not any(hasattr(batch, name) for name in FORWARD_OVERRIDE_NAMES)  # nothing created

    plain = forward_batch_view(BatchWithoutOverrideFields(seq_lens_cpu=torch.tensor([1])), mode)
    assert plain.capture_hidden_mode is mode.NULL  # the 0.5.13 call shape tolerates it too


@pytest.mark.parametrize("override, expected", [(None, "LAST"), ("NULL", "NULL")])
def test_resolve_forward_arguments_derives_only_without_an_override(fakes, override, expected):
    mode = fakes.CaptureHiddenMode
    batch = BatchWithoutOverrideFields(spec_info=type("Spec", (), {"capture_hidden_mode": mode.LAST})())
    resolved = resolve_forward_arguments(batch, None if override is None else mode[override], modes=mode)
    assert resolved.capture_hidden_mode is mode[expected]
    assert resolved.return_hidden_states_before_norm is False
