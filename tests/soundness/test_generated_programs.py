"""Generated programs never change behaviour silently, and no file of them is refused.

`HYPOTHESIS_PROFILE=soundness-long` runs the longer local profile.
"""

from __future__ import annotations

import os

from hypothesis import HealthCheck, given, settings

from tests.soundness.harness import judge
from tests.soundness.programs import programs

settings.register_profile(
    "soundness-ci",
    max_examples=300,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
settings.register_profile(
    "soundness-long",
    max_examples=3000,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
PROFILE = os.environ.get("HYPOTHESIS_PROFILE", "soundness-ci")


@settings(settings.get_profile(PROFILE))
@given(programs())
def test_never_silent(program: str) -> None:
    verdict = judge(program)
    assert verdict.outcome in ("same", "reported"), verdict.explain(program)
