"""Group D (CPU part): ``record_stream_each`` / ``record_stream_for_v2_verify`` with a fake CUDA tensor.

The CUDA variants, which check what the allocator really does, are in
``test_runtime_cuda.py``.
"""

from __future__ import annotations

import types
from unittest import mock

import pytest
import torch

from mwbmigrate.runtime import (
    V2_VERIFY_BATCH_ATTRS,
    V2_VERIFY_INPUT_ATTRS,
    record_stream_each,
    record_stream_for_v2_verify,
)

STREAM = object()  # any object will do as the stream; the helpers never inspect it


def test_record_stream_each_filtering(fakes, recorded):
    a, b, c, d, e = (fakes.cuda_like(i) for i in range(5))
    cpu = torch.tensor([1])
    items = [None, a, 3, "str", cpu, [b, [None, c]], (d,), {"k": fakes.cuda_like(9)}]

    count = record_stream_each(items + [e], STREAM)

    assert count == 5
    assert len(recorded) == 5
    assert all(t is x for (t, _), x in zip(recorded, [a, b, c, d, e], strict=False))  # depth-first, in order
    assert all(s is STREAM for _, s in recorded)


def test_generator_and_repeats(fakes, recorded):
    a = fakes.cuda_like(1)
    assert record_stream_each((t for t in (a, None, a)), STREAM) == 2  # every occurrence
    assert [t is a for t, _ in recorded] == [True, True]


def test_bare_tensor_counts_as_one(fakes, recorded):
    rows = fakes.cuda_like(1, 2, 3)
    assert record_stream_each(rows, STREAM) == 1  # upstream iterated its 3 rows
    assert recorded[0][0] is rows
    scalar = torch.tensor(5).as_subclass(fakes.CudaLike)
    assert record_stream_each(scalar, STREAM) == 1  # upstream: TypeError on a 0-d tensor


def test_self_referencing_list_terminates(fakes, recorded):
    a = fakes.cuda_like(1)
    loop: list = [a]
    loop.append(loop)
    assert record_stream_each([loop, loop], STREAM) == 1  # each container walked once


def test_empty_and_non_tensor_inputs(recorded):
    assert record_stream_each([], STREAM) == 0
    assert record_stream_each([None, [], (), "x"], STREAM) == 0
    assert recorded == []


def test_stream_none_resolves_the_current_stream_once_per_device(fakes, recorded):
    current = object()
    with mock.patch.object(torch.cuda, "current_stream", return_value=current) as spy:
        assert record_stream_each([fakes.cuda_like(1), fakes.cuda_like(2)], None) == 2
    spy.assert_called_once_with(torch.device("cpu"))  # CudaLike lives on the CPU
    assert all(s is current for _, s in recorded)


def test_verify_attribute_lists_are_the_union_of_releases():
    assert V2_VERIFY_BATCH_ATTRS == ("seq_lens", "req_pool_indices", "input_ids", "out_cache_loc")
    upstream_0_5_13 = [
        "draft_token",
        "custom_mask",
        "positions",
        "retrieve_index",
        "retrieve_next_token",
        "retrieve_next_sibling",
    ]
    added_0_5_22 = ["prepared_out_cache_loc", "prepared_mrope_positions"]
    assert [n for n in V2_VERIFY_INPUT_ATTRS if n in upstream_0_5_13] == upstream_0_5_13
    assert set(V2_VERIFY_INPUT_ATTRS) == set(upstream_0_5_13 + added_0_5_22)
    i = V2_VERIFY_INPUT_ATTRS.index("positions")
    assert list(V2_VERIFY_INPUT_ATTRS[i + 1 : i + 3]) == added_0_5_22  # inserted after positions


def test_record_stream_for_v2_verify_candidates(fakes, recorded):
    t = {name: fakes.cuda_like(k) for k, name in enumerate(V2_VERIFY_BATCH_ATTRS + V2_VERIFY_INPUT_ATTRS)}
    batch = types.SimpleNamespace(
        seq_lens=t["seq_lens"],
        req_pool_indices=None,
        input_ids=torch.tensor([1]),  # a CPU tensor: skipped
        out_cache_loc=t["out_cache_loc"],
    )
    p1, p2 = fakes.cuda_like(100), fakes.cuda_like(101)
    verify = types.SimpleNamespace(
        draft_token=t["draft_token"],
        # custom_mask missing
        positions=[p1, p2],  # list-valued: flattened (upstream skipped it)
        prepared_out_cache_loc=t["prepared_out_cache_loc"],  # a 0.5.22+ attribute
        retrieve_index=t["retrieve_index"],
        retrieve_next_token=None,
        retrieve_next_sibling=t["retrieve_next_sibling"],
    )
    expected = [
        t["seq_lens"],
        t["out_cache_loc"],
        t["draft_token"],
        p1,
        p2,
        t["prepared_out_cache_loc"],
        t["retrieve_index"],
        t["retrieve_next_sibling"],
    ]
    assert record_stream_for_v2_verify(batch, verify, STREAM) == len(expected)
    assert len(recorded) == len(expected)
    assert all(got is want for (got, _), want in zip(recorded, expected, strict=False))
    assert all(s is STREAM for _, s in recorded)


def test_v2_verify_without_verify_input_and_with_a_sparse_batch(fakes, recorded):
    seq_lens = fakes.cuda_like(1)
    full = types.SimpleNamespace(
        seq_lens=seq_lens, req_pool_indices=fakes.cuda_like(2), input_ids=None, out_cache_loc=None
    )
    assert record_stream_for_v2_verify(full, None, STREAM) == 2
    recorded.clear()
    sparse = types.SimpleNamespace(seq_lens=seq_lens)  # upstream: AttributeError
    assert record_stream_for_v2_verify(sparse, None, STREAM) == 1
    assert recorded[0][0] is seq_lens


def test_helpers_are_noop_on_cpu_host(fakes):
    """Real CPU tensors, stream=None: nothing in torch.cuda is touched."""
    batch = fakes.make_batch()
    verify = types.SimpleNamespace(draft_token=torch.tensor([1]), positions=[torch.tensor([2])])
    boom = mock.Mock(side_effect=AssertionError("torch.cuda touched"))
    with (
        mock.patch.object(torch.cuda, "current_stream", boom),
        mock.patch.object(torch.cuda, "Stream", boom),
        mock.patch.object(torch.Tensor, "record_stream", boom),
    ):
        assert record_stream_each([batch.seq_lens, [batch.input_ids], None], None) == 0
        assert record_stream_for_v2_verify(batch, verify, None) == 0
    boom.assert_not_called()
    if not torch.cuda.is_available():
        assert not torch.cuda.is_initialized()


@pytest.mark.skipif(torch.cuda.is_available(), reason="checks the CPU-only failure the helpers avoid")
def test_cpu_record_stream_would_raise():
    """Why the is_cuda filter matters: record_stream on a CPU tensor raises (torch 2.13)."""
    with pytest.raises((RuntimeError, NotImplementedError)):
        torch.tensor([1]).record_stream(None)
