"""Group A: one-shot forward overrides (``seq_lens_cpu_cache``, ``capture_hidden_mode``,
``return_hidden_states_before_norm``): ``init_new`` consumes them and resets them first.

For the runtime, ``init_new`` is ``apply_forward_overrides`` (what a migrated ``init_new`` calls);
for a tree it is the tree's own ``ForwardBatch.init_new`` on an IDLE batch with a stub runner.
"""

from __future__ import annotations

from types import SimpleNamespace
from typing import TYPE_CHECKING, Any

import pytest
import torch

if TYPE_CHECKING:  # annotations only: the fixtures hand these in
    from mwbmigrate.verify.suite._impls import Impl

pytestmark = pytest.mark.contract("oneshot")


def _set_all(batch: Any, modes: Any, cache: torch.Tensor) -> None:
    batch.seq_lens_cpu_cache = cache
    batch.capture_hidden_mode = modes.LAST
    batch.return_hidden_states_before_norm = True


def _assert_defaults(batch: Any) -> None:
    assert batch.seq_lens_cpu_cache is None
    assert batch.capture_hidden_mode is None
    assert batch.return_hidden_states_before_norm is False


def test_oneshot_defaults(impl: Impl) -> None:
    _assert_defaults(impl.make_batch())


def test_init_new_consumes_and_resets(impl: Impl) -> None:
    modes = impl.CaptureHiddenMode
    batch = impl.make_batch()
    cache = torch.empty(0, dtype=torch.int64)
    _set_all(batch, modes, cache)
    forward = impl.init_new(batch)
    assert forward.capture_hidden_mode == modes.LAST
    assert forward.return_hidden_states_before_norm is True
    assert forward.seq_lens_cpu is cache  # by identity, not a copy
    _assert_defaults(batch)


def test_second_init_new_sees_defaults(impl: Impl) -> None:
    modes = impl.CaptureHiddenMode
    batch = impl.make_batch(return_hidden_states=True)
    _set_all(batch, modes, torch.empty(0, dtype=torch.int64))
    impl.init_new(batch)
    for _ in range(2):  # consuming the defaults again is idempotent
        forward = impl.init_new(batch)
        assert forward.capture_hidden_mode == modes.FULL  # derived again, not the old override
        assert forward.return_hidden_states_before_norm is False
        assert forward.seq_lens_cpu is batch.seq_lens_cpu
        _assert_defaults(batch)


# (override, return_hidden_states, spec_info's mode ("absent": spec_info without the attribute,
#  None: no spec_info), expected)
PRECEDENCE = [
    ("NULL", True, "LAST", "NULL"),  # an explicit NULL wins over return_hidden_states
    ("LAST", True, None, "LAST"),
    ("FULL", False, "LAST", "FULL"),
    (None, True, "LAST", "FULL"),  # return_hidden_states beats spec_info
    (None, False, "LAST", "LAST"),  # then spec_info's mode
    (None, False, "absent", "NULL"),  # spec_info without a mode
    (None, False, None, "NULL"),  # else NULL
]


@pytest.mark.parametrize("override,hidden,spec_mode,expected", PRECEDENCE)
def test_capture_hidden_mode_precedence(
    impl: Impl, override: str | None, hidden: bool, spec_mode: str | None, expected: Any
) -> None:
    modes = impl.CaptureHiddenMode
    if spec_mode is None:
        spec_info = None
    elif spec_mode == "absent":
        spec_info = SimpleNamespace()
    else:
        spec_info = SimpleNamespace(capture_hidden_mode=getattr(modes, spec_mode))
    batch = impl.make_batch(return_hidden_states=hidden, spec_info=spec_info)
    batch.capture_hidden_mode = None if override is None else getattr(modes, override)
    forward = impl.init_new(batch)
    assert forward.capture_hidden_mode == getattr(modes, expected)
    assert batch.capture_hidden_mode is None


def test_stale_seq_lens_cpu_cache(impl: Impl) -> None:
    batch = impl.make_batch()  # seq_lens has shape (0,)
    batch.seq_lens_cpu_cache = torch.tensor([1, 2, 3])
    batch.capture_hidden_mode = impl.CaptureHiddenMode.LAST
    with pytest.raises(AssertionError) as raised:
        impl.init_new(batch)
    assert "seq_lens" in str(raised.value)
    _assert_defaults(batch)  # reset before the check, so the next forward starts clean


def test_seq_lens_sum_computed_from_cache(impl: Impl) -> None:
    batch = impl.make_batch(seq_lens=torch.tensor([1, 1]), seq_lens_cpu=torch.tensor([1, 1]), seq_lens_sum=None)
    cache = torch.tensor([10, 20])
    batch.seq_lens_cpu_cache = cache
    forward = impl.init_new(batch)
    assert forward.seq_lens_cpu is cache
    assert batch.seq_lens_sum == 30  # written back to the batch, from the effective seq_lens_cpu


@pytest.mark.contract("isolation")
def test_oneshot_set_before_spec_isolation(impl: Impl) -> None:
    """An override set *before* entering a spec isolation and consumed inside.

    Upstream restores it on exit (it is a dataclass field, so the snapshot resurrects it and it
    leaks into the next forward). The runtime resets the one-shot fields on exit instead: a
    deliberate divergence, documented in ``overlap_forward_isolation``.
    """
    modes = impl.CaptureHiddenMode
    batch = impl.make_batch(spec="v2")
    batch.capture_hidden_mode = modes.LAST
    with impl.isolation(batch):
        forward = impl.init_new(batch)
        assert forward.capture_hidden_mode == modes.LAST
        assert batch.capture_hidden_mode is None
    if impl.profile["isolation"] == "upstream":
        assert batch.capture_hidden_mode == modes.LAST  # upstream: resurrected by the restore
    else:
        assert batch.capture_hidden_mode is None  # runtime: reset on exit
