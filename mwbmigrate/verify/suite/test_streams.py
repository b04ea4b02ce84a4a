"""Group D: ``record_stream_each`` and ``record_stream_for_v2_verify`` on CPU, with a tensor that
claims ``is_cuda`` and logs ``record_stream`` calls.

Upstream records top-level tensors only (nested lists are skipped, a bare tensor is iterated by
rows, a missing batch attribute raises AttributeError); the runtime flattens nested lists and
tuples, takes a bare tensor as one, and tolerates missing attributes. Each ``upstream``/``runtime``
profile is held to its own documented behaviour.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from types import SimpleNamespace
from typing import TYPE_CHECKING, Any
from unittest import mock

import pytest
import torch

from mwbmigrate.verify.suite._fakes import CudaLike, Stream, cuda_like

if TYPE_CHECKING:  # annotations only: the fixtures hand these in
    from mwbmigrate.verify.suite._impls import Impl

pytestmark = pytest.mark.contract("streams")


def _recorded() -> list[Any]:
    return [tensor for tensor, _ in CudaLike.LOG]


def _same(actual: Sequence[object], expected: Any) -> bool:
    return len(actual) == len(expected) and all(a is e for a, e in zip(actual, expected, strict=True))


def _flatten(items: Iterable[Any]) -> Iterator[Any]:
    for item in items:
        if isinstance(item, (list, tuple)):
            yield from _flatten(item)
        else:
            yield item


def _expected(impl: Impl, candidates: Sequence[Any]) -> list[torch.Tensor]:
    pool = list(_flatten(candidates)) if impl.profile["streams"] == "runtime" else candidates
    return [t for t in pool if isinstance(t, torch.Tensor) and t.is_cuda]


def test_record_stream_each_filtering(impl: Impl) -> None:
    stream = Stream()
    a, b = cuda_like(1), cuda_like(2)
    nested, pair = [cuda_like(3)], (cuda_like(4),)
    mixed = [a, None, 1, "x", torch.tensor([5]), nested, pair, b]
    impl.record_stream_each(mixed, stream)
    assert all(s is stream for _, s in CudaLike.LOG)
    assert _same(_recorded(), _expected(impl, mixed))
    if impl.profile["streams"] == "upstream":
        assert _same(_recorded(), [a, b])
    else:
        assert _same(_recorded(), [a, nested[0], pair[0], b])

    CudaLike.LOG.clear()
    impl.record_stream_each((t for t in (a, b)), stream)  # any iterable, a generator too
    assert _same(_recorded(), [a, b])

    CudaLike.LOG.clear()
    bare = cuda_like(1, 2, 3)
    impl.record_stream_each(bare, stream)
    if impl.profile["streams"] == "upstream":
        assert len(CudaLike.LOG) == 3  # upstream iterates the rows of a bare tensor
    else:
        assert _same(_recorded(), [bare])

    CudaLike.LOG.clear()
    scalar = torch.tensor(5).as_subclass(CudaLike)
    if impl.profile["streams"] == "upstream":
        with pytest.raises(TypeError):
            impl.record_stream_each(scalar, stream)  # iteration over a 0-d tensor
    else:
        impl.record_stream_each(scalar, stream)
        assert _same(_recorded(), [scalar])


def test_record_stream_for_v2_verify_candidates(impl: Impl) -> None:
    stream = Stream()
    batch = SimpleNamespace(
        seq_lens=cuda_like(1), req_pool_indices=None, input_ids=torch.tensor([1]), out_cache_loc=cuda_like(2)
    )
    verify_input = SimpleNamespace(  # custom_mask and the retrieve_next_* missing
        draft_token=cuda_like(3),
        positions=[cuda_like(4)],
        retrieve_index=cuda_like(5),
        prepared_out_cache_loc=cuda_like(6),
    )
    impl.record_stream_for_v2_verify(batch, verify_input, stream)
    candidates = [batch.seq_lens, batch.req_pool_indices, batch.input_ids, batch.out_cache_loc]
    candidates += [getattr(verify_input, name, None) for name in impl.verify_input_attrs]
    assert _same(_recorded(), _expected(impl, candidates))
    assert all(s is stream for _, s in CudaLike.LOG)
    assert any(t is verify_input.draft_token for t in _recorded())
    assert any(t is verify_input.retrieve_index for t in _recorded())
    prepared = any(t is verify_input.prepared_out_cache_loc for t in _recorded())
    if impl.profile["streams"] == "runtime":
        assert prepared, "the runtime records the union of upstream's lists (0.5.22 added prepared_*)"
        assert any(t is verify_input.positions[0] for t in _recorded())
    else:
        assert prepared == ("prepared_out_cache_loc" in impl.verify_input_attrs)
        assert not any(t is verify_input.positions[0] for t in _recorded())

    CudaLike.LOG.clear()
    impl.record_stream_for_v2_verify(batch, None, stream)  # verify_input=None: batch tensors only
    assert _same(_recorded(), [batch.seq_lens, batch.out_cache_loc])

    CudaLike.LOG.clear()
    partial = SimpleNamespace(seq_lens=cuda_like(1), input_ids=None, out_cache_loc=None)
    if impl.profile["streams"] == "upstream":
        with pytest.raises(AttributeError):
            impl.record_stream_for_v2_verify(partial, None, stream)
    else:
        impl.record_stream_for_v2_verify(partial, None, stream)
        assert _same(_recorded(), [partial.seq_lens])


def test_helpers_are_noop_on_cpu_host(impl: Impl) -> None:
    cuda = torch.cuda
    touched = AssertionError("torch.cuda touched for CPU tensors")
    initialized_before = cuda.is_initialized()
    with (
        mock.patch.object(cuda, "current_stream", side_effect=touched) as current,
        mock.patch.object(cuda, "Stream", side_effect=touched) as new_stream,
    ):
        impl.record_stream_each([torch.tensor([1]), None, torch.tensor([2])], None)
        batch = SimpleNamespace(
            seq_lens=torch.tensor([1]), req_pool_indices=torch.tensor([0]), input_ids=None, out_cache_loc=None
        )
        impl.record_stream_for_v2_verify(batch, SimpleNamespace(draft_token=torch.tensor([1])), None)
    assert not current.called and not new_stream.called
    assert cuda.is_initialized() == initialized_before
