"""Generated async programs never change behaviour silently: the menu's async pieces (suspension at
`await`, `async with`, `async for` while another task decodes the batch) and open windows with tasks
woken by an `asyncio.Event` and `async with` blocks of user context managers. A shard of
`test_generated_programs.py` (see there)."""

from __future__ import annotations

from hypothesis import given, strategies as st

from tests.soundness.harness import judge
from tests.soundness.open_window import window_programs
from tests.soundness.programs import programs, shard_settings


@shard_settings(1)
@given(st.one_of(programs(is_async=True), window_programs(is_async=True)))
def test_never_silent_async(program: str) -> None:
    verdict = judge(program)
    assert verdict.outcome in ("same", "reported"), verdict.explain(program)
