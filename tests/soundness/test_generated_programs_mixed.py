"""Generated programs whose open window also runs pieces of the menu of known hazards (sync and
async) never change behaviour silently. A shard of `test_generated_programs.py` (see there)."""

from __future__ import annotations

from hypothesis import given

from tests.soundness.harness import judge
from tests.soundness.open_window import window_programs
from tests.soundness.programs import shard_settings


@shard_settings(1)
@given(window_programs(mix_menu=True))
def test_never_silent_mixed(program: str) -> None:
    verdict = judge(program)
    assert verdict.outcome in ("same", "reported"), verdict.explain(program)
