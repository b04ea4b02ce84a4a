"""Generated programs never change behaviour silently, and no file of them is refused: menu programs.

The generated-program tests are split into shards that pytest-xdist can spread over workers
(`--dist loadfile` keeps a module on one worker): this one draws synchronous programs of the menu of
known hazards (`programs.programs`); `test_generated_programs_async.py`, `_window.py` and `_mixed.py`
draw the others. Each shard takes a quarter of the profile's examples (`programs.shard_settings`): the
derandomized CI profile runs 300 in all, `HYPOTHESIS_PROFILE=soundness-long` 3000.
"""

from __future__ import annotations

from hypothesis import given

from tests.soundness.harness import judge
from tests.soundness.programs import programs, shard_settings


@shard_settings(1)
@given(programs(is_async=False))
def test_never_silent(program: str) -> None:
    verdict = judge(program)
    assert verdict.outcome in ("same", "reported"), verdict.explain(program)
