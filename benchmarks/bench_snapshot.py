"""Benchmark: the cost of a snapshot kept in code, next to the forward isolation's, per forward.

Run: ``python benchmarks/bench_snapshot.py [--calls N] [--repeats R] [--decode-step-ms MS] [--requests 64,256]``

Where the rewrite cannot prove that the live batch reads the same, it keeps the snapshot:
``worker_batch_snapshot(batch)`` once per forward. This prints, side by side in one run on the
same 120-field batch shaped like 0.5.13's ``ScheduleBatch`` (a speculative input), once for each
request count of ``--requests`` (64 and 256 by default):

* the kept snapshot, ``worker_batch_snapshot(batch)``: the old object, built by the old method's reads;
* what it replaces in 0.5.12, a ``ModelWorkerBatch``-like dataclass built from 51 fields;
* the 0.5.13 scheduler's ``overlap_forward_isolation`` enter+exit around a forward (full snapshot);

each in µs per forward (best of ``--repeats`` rounds of ``--calls``), and as a share of a decode
step of ``--decode-step-ms`` (default 10 ms, a small model's decode step on one GPU; the aim is
under 1%).
"""

from __future__ import annotations

import argparse
import dataclasses
import enum
import pathlib
import sys
import timeit
import types
from typing import Any

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))

from mwbmigrate.runtime import BatchRecordRing, overlap_forward_isolation, worker_batch_snapshot  # noqa: E402

N_FIELDS = 120
N_OLD_FIELDS = 51


class CaptureHiddenMode(enum.Enum):
    NULL = 0
    LAST = 1
    FULL = 2


class _ForwardMode(enum.Enum):
    DECODE = 2

    def is_decode_or_idle(self) -> bool:
        return True


@dataclasses.dataclass
class _Req:
    lora_id: str | None = None
    dllm_block_offset: int = 0
    grammar: Any = None


class _SpecAlgorithm:
    def supports_spec_v2(self) -> bool:
        return True

    def is_none(self) -> bool:
        return False


class _SamplingInfo:
    grammars: Any = None

    def copy_for_forward(self) -> _SamplingInfo:
        return _SamplingInfo()


@dataclasses.dataclass
class _SpecInfo:
    capture_hidden_mode: CaptureHiddenMode = CaptureHiddenMode.LAST


_NAMED = [
    "reqs",
    "forward_mode",
    "sampling_info",
    "spec_algorithm",
    "spec_info",
    "has_grammar",
    "return_hidden_states",
    "seq_lens_cpu",
    "extend_lens",
    "prefix_lens",
    "extend_logprob_start_lens",
    "seq_lens_cpu_cache",
    "capture_hidden_mode",
    "return_hidden_states_before_norm",
]


def _batch(n_reqs: int) -> Any:
    names = _NAMED + [f"field_{i:03d}" for i in range(N_FIELDS - len(_NAMED))]
    cls = dataclasses.make_dataclass("ScheduleBatch", [(n, Any, dataclasses.field(default=None)) for n in names])
    cls.is_spec_v2 = property(lambda self: self.spec_algorithm.supports_spec_v2())
    return cls(
        reqs=[_Req(f"lora{i % 4}", i, None) for i in range(n_reqs)],
        forward_mode=_ForwardMode.DECODE,
        sampling_info=_SamplingInfo(),
        spec_algorithm=_SpecAlgorithm(),
        spec_info=_SpecInfo(),
        has_grammar=False,
        return_hidden_states=False,
        return_hidden_states_before_norm=False,
    )


def _old_snapshot_class() -> type:
    names = [f"field_{i:03d}" for i in range(N_OLD_FIELDS)]
    return dataclasses.make_dataclass("ModelWorkerBatch", [(n, Any) for n in names])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=20000)
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--decode-step-ms", type=float, default=10.0)
    parser.add_argument("--requests", default="64,256", help="request counts, comma-separated")
    args = parser.parse_args()
    module = types.ModuleType("sglang.srt.model_executor.forward_batch_info")
    module.CaptureHiddenMode = CaptureHiddenMode  # type: ignore[attr-defined]
    sys.modules[module.__name__] = module  # where the snapshot looks the enum up, as in a server
    for n_reqs in (int(n) for n in args.requests.split(",")):
        _measure(_batch(n_reqs), n_reqs, args.calls, args.repeats, args.decode_step_ms)


def _measure(batch: Any, n_reqs: int, calls: int, repeats: int, decode_step_ms: float) -> None:
    old_class = _old_snapshot_class()
    old_names = [f"field_{i:03d}" for i in range(N_OLD_FIELDS)]
    ring = BatchRecordRing(2)

    def kept_snapshot() -> None:
        worker_batch_snapshot(batch)

    def old_method() -> None:
        # 0.5.12's get_model_worker_batch: the gating, the grammars, two request lists, the constructor.
        reqs = batch.reqs
        batch.sampling_info.grammars = None
        values = {name: getattr(batch, name) for name in old_names}
        values["field_000"] = [req.lora_id for req in reqs]
        values["field_001"] = [req.dllm_block_offset for req in reqs]
        old_class(**values)

    def isolation() -> None:
        with overlap_forward_isolation(batch, ring):
            pass

    sides = {"kept snapshot (worker_batch_snapshot)": kept_snapshot, "0.5.12 get_model_worker_batch": old_method}
    sides["0.5.13 forward isolation (enter+exit)"] = isolation
    best = {name: float("inf") for name in sides}
    for _ in range(repeats):
        for name, run in sides.items():  # alternating round by round
            best[name] = min(best[name], timeit.timeit(run, number=calls) / calls)
    step_us = decode_step_ms * 1000
    print(f"batch: {N_FIELDS} fields, {n_reqs} requests; decode step taken as {decode_step_ms} ms")
    print(f"{'':42} {'µs/forward':>11} {'% of a decode step':>19}")
    for name, seconds in best.items():
        micro = seconds * 1e6
        print(f"{name:42} {micro:11.2f} {100 * micro / step_us:18.4f}%")
    kept = best["kept snapshot (worker_batch_snapshot)"] * 1e6
    print(f"kept snapshot / isolation: {kept / (best['0.5.13 forward isolation (enter+exit)'] * 1e6):.2f}")
    print(f"kept snapshot / 0.5.12 method: {kept / (best['0.5.12 get_model_worker_batch'] * 1e6):.2f}")
    print(f"under 1% of a decode step: {'yes' if kept < step_us / 100 else 'no'}\n")


if __name__ == "__main__":
    main()
