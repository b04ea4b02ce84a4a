"""With `--live-batch`, generated programs never change behaviour silently either: every site reads
the live batch, and each one the window allowlist does not prove carries its marker (MWB141,
MWB142). The programs are those of the other shards, synchronous and async, menu and open window.
A shard of `test_generated_programs.py` (see there)."""

from __future__ import annotations

from hypothesis import given, strategies as st

from mwbmigrate.engine.transform import TransformOptions
from tests.soundness.harness import judge
from tests.soundness.open_window import window_programs
from tests.soundness.programs import programs, shard_settings

LIVE = TransformOptions(live_batch=True)


@shard_settings(1)
@given(
    st.one_of(
        programs(is_async=False),
        programs(is_async=True),
        window_programs(is_async=False),
        window_programs(is_async=True),
        window_programs(mix_menu=True),
    )
)
def test_never_silent_with_the_live_batch(program: str) -> None:
    verdict = judge(program, LIVE)
    assert verdict.outcome in ("same", "reported"), verdict.explain(program)
