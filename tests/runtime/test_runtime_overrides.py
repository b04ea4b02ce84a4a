"""Group A: one-shot forward overrides (SGLang 0.5.13 ``ForwardBatch.init_new`` contract)."""

from __future__ import annotations

import dataclasses
import sys
import types
from typing import Any

import pytest
import torch

from mwbmigrate.runtime import (
    FORWARD_OVERRIDE_DEFAULTS,
    FORWARD_OVERRIDE_NAMES,
    CaptureHiddenModeUnresolvedError,
    ForwardOverrideFields,
    ForwardOverrides,
    StaleSeqLensCpuCacheError,
    apply_forward_overrides,
    consume_forward_overrides,
    derive_capture_hidden_mode,
    overlap_forward_isolation,
    reset_forward_overrides,
)


def test_defaults_constant_matches_upstream_declaration():
    assert FORWARD_OVERRIDE_DEFAULTS == (
        ("seq_lens_cpu_cache", None),
        ("capture_hidden_mode", None),
        ("return_hidden_states_before_norm", False),
    )
    assert FORWARD_OVERRIDE_NAMES == tuple(n for n, _ in FORWARD_OVERRIDE_DEFAULTS)


def test_oneshot_defaults(fakes):
    batch = fakes.FakeScheduleBatch()
    assert batch.seq_lens_cpu_cache is None
    assert batch.capture_hidden_mode is None
    assert batch.return_hidden_states_before_norm is False


def test_mixin_declares_the_fields_keyword_only():
    @dataclasses.dataclass
    class Batch(ForwardOverrideFields):
        reqs: list  # a non-default positional field after the mixin's defaults

    batch = Batch([1])
    fields = {f.name: f for f in dataclasses.fields(Batch)}
    for name, default in FORWARD_OVERRIDE_DEFAULTS:
        assert fields[name].default is default and fields[name].kw_only
        assert getattr(batch, name) is default
    assert Batch([], capture_hidden_mode=2).capture_hidden_mode == 2
    with pytest.raises(TypeError):
        Batch([], None)  # the override fields are not positional


def test_consume_returns_values_and_resets(fakes):
    batch = fakes.make_batch()
    cache = torch.tensor([10, 20])
    batch.seq_lens_cpu_cache = cache
    batch.capture_hidden_mode = fakes.CaptureHiddenMode.LAST
    batch.return_hidden_states_before_norm = True

    got = consume_forward_overrides(batch)

    assert isinstance(got, ForwardOverrides)
    assert got.seq_lens_cpu_cache is cache
    assert got.capture_hidden_mode is fakes.CaptureHiddenMode.LAST
    assert got.return_hidden_states_before_norm is True
    assert (batch.seq_lens_cpu_cache, batch.capture_hidden_mode, batch.return_hidden_states_before_norm) == (
        None,
        None,
        False,
    )
    # Second consumption: defaults, still reset (idempotent).
    assert consume_forward_overrides(batch) == ForwardOverrides(None, None, False)
    assert batch.return_hidden_states_before_norm is False


def test_apply_uses_the_overrides_then_the_next_forward_sees_defaults(fakes):
    mode = fakes.CaptureHiddenMode
    batch = fakes.make_batch(seq_lens=[10, 20])
    cache = torch.tensor([11, 21])
    batch.seq_lens_cpu_cache = cache
    batch.capture_hidden_mode = mode.LAST
    batch.return_hidden_states_before_norm = True

    first = apply_forward_overrides(batch, modes=mode)
    assert first.seq_lens_cpu is cache  # identity, as init_new passes it on
    assert first.capture_hidden_mode is mode.LAST
    assert first.return_hidden_states_before_norm is True

    second = apply_forward_overrides(batch, modes=mode)
    assert second.capture_hidden_mode is mode.NULL  # derived again
    assert second.return_hidden_states_before_norm is False
    assert second.seq_lens_cpu is batch.seq_lens_cpu


PRECEDENCE = [
    # (override, return_hidden_states, spec_info mode or "absent"/"no-spec", expected)
    ("NULL", True, "FULL", "NULL"),  # an explicit NULL beats return_hidden_states
    ("LAST", True, "FULL", "LAST"),
    (None, True, "LAST", "FULL"),  # return_hidden_states beats spec_info
    (None, False, "LAST", "LAST"),  # spec_info beats the NULL default
    (None, False, "no-spec", "NULL"),
    (None, False, "absent", "NULL"),  # spec_info without the attribute
    (None, False, None, "NULL"),  # spec_info whose attribute is None
]


@pytest.mark.parametrize("override,return_hidden,spec_mode,expected", PRECEDENCE)
def test_capture_hidden_mode_precedence(fakes, override, return_hidden, spec_mode, expected):
    mode = fakes.CaptureHiddenMode
    if spec_mode == "no-spec":
        spec_info = None
    elif spec_mode == "absent":
        spec_info = types.SimpleNamespace()
    else:
        spec_info = types.SimpleNamespace(capture_hidden_mode=mode[spec_mode] if spec_mode else None)
    batch = fakes.make_batch(return_hidden_states=return_hidden, spec_info=spec_info)
    got = derive_capture_hidden_mode(batch, mode[override] if override else None, modes=mode)
    assert got is mode[expected]


def test_capture_mode_members_found_without_modes(fakes, monkeypatch):
    mode = fakes.CaptureHiddenMode
    plain = fakes.make_batch()
    full = fakes.make_batch(return_hidden_states=True)
    # Explicit members.
    assert derive_capture_hidden_mode(plain, null=mode.NULL) is mode.NULL
    assert derive_capture_hidden_mode(full, full=mode.FULL) is mode.FULL
    # The enum class of another known member.
    assert derive_capture_hidden_mode(full, null=mode.NULL) is mode.FULL
    spec_full = fakes.make_batch(
        return_hidden_states=True, spec_info=types.SimpleNamespace(capture_hidden_mode=mode.LAST)
    )
    assert derive_capture_hidden_mode(spec_full) is mode.FULL
    # Nothing to go by: a clear error...
    with pytest.raises(CaptureHiddenModeUnresolvedError, match="modes=CaptureHiddenMode"):
        derive_capture_hidden_mode(plain)
    # ...unless sglang's module is already imported (looked up, never imported).
    module = types.ModuleType("sglang.srt.model_executor.forward_batch_info")
    module.CaptureHiddenMode = mode
    monkeypatch.setitem(sys.modules, module.__name__, module)
    assert derive_capture_hidden_mode(plain) is mode.NULL
    assert derive_capture_hidden_mode(full) is mode.FULL


def test_override_needs_no_enum_at_all(fakes):
    sentinel = object()
    assert derive_capture_hidden_mode(fakes.make_batch(return_hidden_states=True), sentinel) is sentinel


def test_stale_seq_lens_cpu_cache_raises_with_both_shapes_and_field_reset(fakes):
    batch = fakes.make_batch(seq_lens=[10, 20])
    batch.seq_lens_cpu_cache = torch.tensor([1, 2, 3])
    batch.capture_hidden_mode = fakes.CaptureHiddenMode.LAST

    with pytest.raises(StaleSeqLensCpuCacheError) as info:
        consume_forward_overrides(batch)

    err = info.value
    assert isinstance(err, ValueError) and isinstance(err, AssertionError)  # upstream raised AssertionError
    assert err.cache_shape == (3,) and err.seq_lens_shape == (2,)
    assert "(3,)" in str(err) and "(2,)" in str(err)
    # Reset before the check, all three of them.
    assert batch.seq_lens_cpu_cache is None and batch.capture_hidden_mode is None
    # The check can be skipped.
    batch.seq_lens_cpu_cache = torch.tensor([1, 2, 3])
    assert consume_forward_overrides(batch, check_shape=False).seq_lens_cpu_cache.shape == (3,)


def test_stale_cache_against_missing_seq_lens(fakes):
    batch = fakes.make_batch()
    batch.seq_lens = None
    batch.seq_lens_cpu_cache = torch.tensor([1])
    with pytest.raises(StaleSeqLensCpuCacheError, match="None"):
        apply_forward_overrides(batch, modes=fakes.CaptureHiddenMode)
    assert batch.seq_lens_cpu_cache is None


def test_seq_lens_sum_is_computed_from_the_effective_seq_lens_cpu(fakes):
    batch = fakes.make_batch(seq_lens=[1, 2])
    batch.seq_lens_sum = None
    batch.seq_lens_cpu_cache = torch.tensor([10, 20])
    apply_forward_overrides(batch, modes=fakes.CaptureHiddenMode)
    assert batch.seq_lens_sum == 30  # from the cache, written back as upstream does

    batch.seq_lens_sum = 7  # a set sum is left alone
    batch.seq_lens_cpu_cache = torch.tensor([10, 20])
    apply_forward_overrides(batch, modes=fakes.CaptureHiddenMode)
    assert batch.seq_lens_sum == 7


def test_batch_without_the_fields_0_5_16(fakes):
    @dataclasses.dataclass
    class NewBatch:  # 0.5.16+: the one-shot fields are gone
        seq_lens: Any = None
        return_hidden_states: bool = False
        spec_info: Any = None

    batch = NewBatch(seq_lens=torch.tensor([1]))
    assert consume_forward_overrides(batch) == ForwardOverrides(None, None, False)
    reset_forward_overrides(batch)
    resolved = apply_forward_overrides(batch, modes=fakes.CaptureHiddenMode)
    assert resolved.capture_hidden_mode is fakes.CaptureHiddenMode.NULL
    assert not any(hasattr(batch, n) for n in FORWARD_OVERRIDE_NAMES)  # nothing created


def test_reset_forward_overrides(fakes):
    batch = fakes.make_batch()
    batch.seq_lens_cpu_cache = torch.tensor([1, 2])
    batch.capture_hidden_mode = fakes.CaptureHiddenMode.FULL
    batch.return_hidden_states_before_norm = True
    reset_forward_overrides(batch)
    assert [getattr(batch, n) for n in FORWARD_OVERRIDE_NAMES] == [None, None, False]


@pytest.mark.parametrize("reset_overrides", [True, False])
def test_oneshot_set_before_spec_isolation(fakes, reset_overrides):
    """Upstream resurrects an override set before a spec isolation; we reset it by default."""
    mode = fakes.CaptureHiddenMode
    batch = fakes.make_batch(spec_algorithm=fakes.SPEC_V2)
    batch.capture_hidden_mode = mode.LAST

    with overlap_forward_isolation(batch, reset_overrides=reset_overrides):
        consumed = apply_forward_overrides(batch, modes=mode)
        assert consumed.capture_hidden_mode is mode.LAST  # the forward does see it
        assert batch.capture_hidden_mode is None

    if reset_overrides:
        assert batch.capture_hidden_mode is None  # cannot leak into the next forward
    else:
        assert batch.capture_hidden_mode is mode.LAST  # upstream: restored from the snapshot


def test_oneshot_set_inside_and_not_consumed_is_reset_on_exit(fakes):
    batch = fakes.make_batch(spec_algorithm=fakes.NON_SPEC)
    with overlap_forward_isolation(batch):
        batch.return_hidden_states_before_norm = True  # never consumed: forward failed early
    assert batch.return_hidden_states_before_norm is False
